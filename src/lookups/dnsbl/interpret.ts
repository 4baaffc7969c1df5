// What a DNSBL's answer means (RFC 5782 §2.1 and §5; Spamhaus's return codes:
// docs.spamhaus.com, "Available Zones"; the rules: docs/api.md, "Records",
// Blacklist), pure.
// Only 127.0.0.x listing codes count as listed; anything else a list or a
// resolver sends back is reported as an error for that source, never a listing.
import { parseIpv4 } from '../../net/ip.js';
import { codeWeight, type ZoneInfo } from './zones.js';

export type Interpretation =
  | { readonly kind: 'listed'; readonly codes: readonly string[]; readonly confidence: number }
  | { readonly kind: 'clean' }
  | { readonly kind: 'error'; readonly message: string };

const LOOPBACK_NET = 127;

/** A message for an address that is not a listing code, or null for a listing code. */
function refusal(info: ZoneInfo, address: string): string | null {
  const known = info.errorCodes?.[address];
  if (known !== undefined) return known;
  const ip = parseIpv4(address);
  if (ip === null) return `the list answered ${JSON.stringify(address)}, which is not an address`;
  const [a, b, c, d] = [
    ip.value >>> 24,
    (ip.value >>> 16) & 255,
    (ip.value >>> 8) & 255,
    ip.value & 255,
  ];
  if (a !== LOOPBACK_NET) {
    // RFC 5782 §2.1 answers live in 127/8; anything else is a resolver that
    // rewrites NXDOMAIN (search/ad redirection) or a dead zone answering everything
    return `the answer ${address} is outside 127.0.0.0/8 (a rewriting resolver or a dead list)`;
  }
  if (b === 255 && c === 255) return `the list refused the query (${address})`;
  if (b !== 0 || c !== 0) return `the list answered an unexpected code ${address}`;
  // RFC 5782 §5: 127.0.0.1 must never be listed; a list answering it is broken
  if (d === 1 || d === 0) return `the list answered ${address}, which is not a listing code`;
  return null;
}

/**
 * `rcode` and the A addresses answered for the query name → listed, clean or error.
 * NXDOMAIN (and an empty NOERROR) is "not listed". A listing's confidence is
 * the highest weight among its codes; one refusal code spoils the whole answer.
 */
export function interpretAnswer(
  info: ZoneInfo,
  rcode: 'NOERROR' | 'NXDOMAIN',
  addresses: readonly string[],
): Interpretation {
  if (rcode === 'NXDOMAIN' || addresses.length === 0) return { kind: 'clean' };
  for (const address of addresses) {
    const message = refusal(info, address);
    if (message !== null) return { kind: 'error', message };
  }
  const weights = addresses.map((address) => codeWeight(info, Number(address.split('.')[3])));
  return { kind: 'listed', codes: [...new Set(addresses)], confidence: Math.max(...weights) };
}
