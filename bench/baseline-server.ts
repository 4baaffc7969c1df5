// The yardstick for `npm run bench`: a bare node:http server answering a
// constant JSON body of the same size as a GeoIP answer, with no routing,
// no rate limit, no cache and no logging.
import { createServer } from 'node:http';

const body = JSON.stringify({
  data: {
    ip: '8.8.8.8',
    country: 'US',
    city: 'Mountain View',
    region: 'California',
    timezone: 'America/Los_Angeles',
    latitude: 37.422,
    longitude: -122.085,
    isp: 'Google LLC',
    asn: 'AS15169',
    org: 'Google LLC',
    bogon: false,
  },
});

const port = Number(process.argv[2] ?? 0);
const server = createServer((_req, res) => {
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
});
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `listening ${typeof address === 'object' && address ? address.port : port}\n`,
  );
});
