// The facts about each RIR that the lookup needs without asking anyone:
// its RDAP base URL (IANA bootstrap, https preferred per RFC 9224 §3) and
// its port-43 whois host (RFC 3912; the hosts as the `whois` client's `ip_del_list`, https://github.com/rfc1036/whois).
import type { Rir } from './types.js';

export interface RegistryInfo {
  readonly rdapBaseUrl: string;
  readonly whoisHost: string;
}

export const REGISTRIES: Readonly<Record<Rir, RegistryInfo>> = {
  arin: { rdapBaseUrl: 'https://rdap.arin.net/registry/', whoisHost: 'whois.arin.net' },
  ripe: { rdapBaseUrl: 'https://rdap.db.ripe.net/', whoisHost: 'whois.ripe.net' },
  apnic: { rdapBaseUrl: 'https://rdap.apnic.net/', whoisHost: 'whois.apnic.net' },
  lacnic: { rdapBaseUrl: 'https://rdap.lacnic.net/rdap/', whoisHost: 'whois.lacnic.net' },
  afrinic: { rdapBaseUrl: 'https://rdap.afrinic.net/rdap/', whoisHost: 'whois.afrinic.net' },
};

export const RIRS = Object.keys(REGISTRIES) as Rir[];

/** Where a query goes when no registry is known: IANA answers with `refer:`. */
export const IANA_WHOIS_HOST = 'whois.iana.org';

/** rdap.arin.net, whois.ripe.net, … → the RIR; anything else → null. */
export function rirFromHost(host: string): Rir | null {
  const name = host.toLowerCase().replace(/\.$/, '');
  for (const rir of RIRS) {
    // ripe.net and db.ripe.net are both RIPE; "notarin.net" is not ARIN
    if (name === `${rir}.net` || name.endsWith(`.${rir}.net`)) return rir;
  }
  return null;
}

/** The RIR of an http(s) URL's host, or null for an unparsable URL. */
export function rirFromUrl(url: string): Rir | null {
  try {
    return rirFromHost(new URL(url).hostname);
  } catch {
    return null;
  }
}
