// The vpn-range rule for IPv6 exits (docs/detection.md). The IPv4 rule's
// measure, the routed block, does not carry over: IPv6 prefixes are routed as
// /29–/48, a whole hosting company's space. The unit here is the /48 instead:
// the longest prefix routed on the Internet, as the /24 is for IPv4, and the
// block assigned to one site (RFC 6177), so the one IPv6 block that can be
// one customer's. Exits are grouped by their /48; a /48 is judged as the IPv4
// rule judges a /24 (any network but an access network, or one no AS is
// known for). Pure: the AS lookup is passed in.
import { formatIpv6, parseIp, type Ipv6 } from '../../../net/ip.js';
import type { StoredFeed } from '../feeds/feed-types.js';

/** The AS of an IPv6 address, from the ASN table; null where none is known. */
export type NetworkOfV6 = (
  ip: Ipv6,
) => { readonly asn: number; readonly org: string | null } | null;

export interface V6Block {
  /** the /48, as CIDR text */
  readonly cidr: string;
  /** an exit inside it, for the AS lookup */
  readonly sample: Ipv6;
  /** provider id → its distinct exits in the block */
  readonly exits: Map<string, Set<string>>;
}

/** The VPN feeds' IPv6 host entries (`/128`) naming a provider, grouped by /48. */
export function collectV6Blocks(stored: readonly StoredFeed[]): Map<string, V6Block> {
  const blocks = new Map<string, V6Block>();
  for (const feed of stored) {
    if (feed.kind !== 'vpn') continue;
    feed.prefixes.forEach((prefix, i) => {
      const provider = feed.providers?.[i] || feed.provider;
      if (provider === undefined || !prefix.endsWith('/128')) return;
      const ip = parseIp(prefix.slice(0, -4));
      if (ip?.version !== 6) return;
      const cidr = `${formatIpv6([...ip.groups.slice(0, 3), 0, 0, 0, 0, 0])}/48`;
      let block = blocks.get(cidr);
      if (block === undefined) {
        block = { cidr, sample: ip, exits: new Map() };
        blocks.set(cidr, block);
      }
      const exits = block.exits.get(provider) ?? new Set<string>();
      block.exits.set(provider, exits.add(ip.text));
    });
  }
  return blocks;
}
