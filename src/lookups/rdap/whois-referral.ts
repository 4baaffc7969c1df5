// Referrals in port-43 answers. ARIN prints `ReferralServer:` once per
// matching network, least specific first, so the last one wins (rfc1036/whois
// `find_referral_server_arin`); IANA and RPSL servers print `refer:`.
import { isIP } from 'node:net';

export interface WhoisTarget {
  host: string;
  port: number;
}

export function findReferral(answer: string): WhoisTarget | null {
  const arin = [...answer.matchAll(/^ReferralServer:[ \t]*(\S+)/gim)];
  const refer = /^refer:[ \t]*(\S+)/im.exec(answer);
  const value = arin.at(-1)?.[1] ?? refer?.[1];
  return value === undefined ? null : parseReferral(value);
}

/**
 * `whois://host[:port][/]`, a bare `host[:port]` or `[v6]:port`. rwhois://
 * (RFC 2167) and web URLs speak other protocols and are not followed.
 */
export function parseReferral(raw: string): WhoisTarget | null {
  let value = raw.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value);
  if (scheme !== null) {
    if (scheme[1]?.toLowerCase() !== 'whois') return null;
    value = value.slice(scheme[0].length);
  }
  value = value.replace(/\/+$/, '');
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  const plain = /^([^:/[\]]+)(?::(\d{1,5}))?$/.exec(value);
  const match = bracketed ?? plain;
  if (match === null) return null;
  const host = (match[1] ?? '').toLowerCase();
  const port = match[2] === undefined ? 43 : Number(match[2]);
  const validHost = bracketed ? isIP(host) === 6 : /^[a-z0-9]([a-z0-9.-]{0,252})$/.test(host);
  if (!validHost || port < 1 || port > 65535) return null;
  return { host, port };
}
