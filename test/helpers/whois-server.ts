// A real port-43 server on 127.0.0.1 for tests: two listeners sharing one
// answer table, so an answer can refer the client to "another server" (the
// second port). Queries are recorded with the port they arrived on.
//   fixture queries      → test/fixtures/whois/<file> ({{PORT}}, {{REFERRAL_PORT}} filled in)
//   "n + 23.0.9.9"       → never answers (hangs)
//   "n + 23.0.8.8"       → ARIN's "No match found"
//   "n + 23.0.7.7"       → binary garbage
//   "n + 23.0.6.6"       → 300 KiB of comment lines (over the size bound)
//   "n + 23.0.5.5"       → an ARIN net referring to the second port, where the query hangs
//   "n + 23.0.4.11"      → an ARIN net referring to the port it came from (a loop)
//   anything else        → RIPE's "%ERROR:101: no entries found"
import { readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

const FIXTURES = new URL('../fixtures/whois/', import.meta.url);

/** query line (without CRLF) → fixture file */
export const WHOIS_ANSWERS: Readonly<Record<string, string>> = {
  'n + 23.0.2.10': 'arin_23.0.2.10.txt',
  'n + 23.0.4.10': 'arin_23.0.4.10.txt',
  '23.0.4.10': 'referred_23.0.4.10.txt',
  '-r 62.0.2.1': 'ripe_62.0.2.1.txt',
  '-r 2a00:f00::1': 'ripe_2a00-f00--1.txt',
  '27.0.2.1': 'apnic_27.0.2.1.txt',
  '200.0.2.1': 'lacnic_200.0.2.1.txt',
  '196.0.2.1': 'afrinic_196.0.2.1.txt',
};

export interface WhoisServer {
  port: number;
  referralPort: number;
  queries: { port: number; query: string }[];
  close(): Promise<void>;
}

const REFERRAL_NET = (port: number) =>
  `NetRange: 23.0.0.0 - 23.0.255.255\nNetName: EXAMPLE-REFERRING\nNetHandle: NET-23-0-0-0-9\n` +
  `Organization: Example Corporation (EXCO)\nReferralServer: whois://127.0.0.1:${port}\n`;

export async function startWhoisServer(): Promise<WhoisServer> {
  const queries: WhoisServer['queries'] = [];
  const sockets = new Set<Socket>();
  const ports = { main: 0, referral: 0 };
  const handler = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      const end = buffered.indexOf('\r\n');
      if (end === -1) return;
      const query = buffered.slice(0, end);
      queries.push({ port: socket.localPort ?? 0, query });
      answer(socket, query, ports);
    });
  };
  const main = createServer(handler);
  const referral = createServer(handler);
  ports.main = await listen(main);
  ports.referral = await listen(referral);
  return {
    port: ports.main,
    referralPort: ports.referral,
    queries,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([closeServer(main), closeServer(referral)]);
    },
  };
}

function answer(socket: Socket, query: string, ports: { main: number; referral: number }): void {
  const local = socket.localPort ?? 0;
  const file = WHOIS_ANSWERS[query];
  if (file !== undefined) {
    const text = readFileSync(new URL(file, FIXTURES), 'latin1')
      .replaceAll('{{PORT}}', String(ports.main))
      .replaceAll('{{REFERRAL_PORT}}', String(ports.referral));
    return void socket.end(Buffer.from(text, 'latin1'));
  }
  switch (query) {
    case 'n + 23.0.9.9':
    case '23.0.5.5':
      return; // hangs
    case 'n + 23.0.8.8':
      return void socket.end('\n#\n# ARIN WHOIS data\n#\n\nNo match found for n + 23.0.8.8.\n');
    case 'n + 23.0.7.7':
      return void socket.end(Buffer.from([0, 159, 146, 150, 255, 10, 1, 2, 3]));
    case 'n + 23.0.6.6':
      return void socket.end(`% ${'x'.repeat(78)}\n`.repeat(3840));
    case 'n + 23.0.5.5':
      return void socket.end(REFERRAL_NET(ports.referral));
    case 'n + 23.0.4.11':
      return void socket.end(REFERRAL_NET(local));
    default:
      return void socket.end(
        '%ERROR:101: no entries found\n%\n% No entries found in source RIPE.\n',
      );
  }
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A connect that refuses anything but loopback: tests must never reach a registry. */
export function loopbackConnect(target: { host: string; port: number }): Socket {
  if (target.host !== '127.0.0.1' && target.host !== '::1' && target.host !== 'localhost') {
    throw new Error(`test tried to connect to ${target.host}:${target.port}`);
  }
  return connect(target);
}
