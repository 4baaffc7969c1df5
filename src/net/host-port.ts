// A server named as `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6
// address (DNS_SERVERS, WHOIS_SERVER): the port
// defaults to the protocol's own when left out.
import { isIP } from 'node:net';

export interface HostPort {
  host: string;
  port: number;
}

/** The host and port `text` names, or null when it names none (a port outside 1–65535 included). */
export function parseHostPort(text: string, defaultPort: number): HostPort | null {
  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(\d{1,5}))?$/.exec(text);
  const plain = /^([A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(text);
  const bareV6 = isIP(text) === 6 ? [text, text, undefined] : null;
  const match = bracketed ?? bareV6 ?? plain;
  if (!match?.[1]) return null;
  const port = match[2] === undefined ? defaultPort : Number(match[2]);
  if (port < 1 || port > 65535) return null;
  return { host: match[1], port };
}
