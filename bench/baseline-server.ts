// The yardstick for `npm run bench`: a bare node:http server answering one
// constant JSON body the size of a GeoIP answer, with no routing, no rate
// limit, no cache and no logging. The same server and body as the reference
// ../shared/bench/servers/bare.mjs; it listens on 127.0.0.1:$PORT.
import { createServer } from 'node:http';

const body = Buffer.from(
  JSON.stringify({
    data: {
      ip: '203.0.113.199',
      country: 'DE',
      city: 'Frankfurt am Main',
      region: 'Hessen',
      timezone: 'Europe/Berlin',
      latitude: 50.110900878906,
      longitude: 8.682100296021,
      isp: 'Deutsche Telekom AG, Internet Service Provider',
      asn: 'AS3320',
      org: 'Deutsche Telekom AG, Internet Service Provider, Backbone',
    },
  }),
);
const headers = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': body.length,
};

createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
}).listen(Number(process.env['PORT'] ?? 18080), '127.0.0.1');
