// A CSV row's range columns, `first,last,blocks`: the fewest CIDR blocks
// covering a range exactly (ClickHouse's ip_trie and most range joins want
// prefixes), found by the range lists' cover (src/net/cidr-cover.ts).
import { formatIpv4, formatIpv6 } from '../net/ip.js';
import { groupsOfWords, v4Blocks, v6Blocks, type Words } from '../net/cidr-cover.js';

export { compare, decrement, groupsOfWords, type Words } from '../net/cidr-cover.js';

/** the blocks of the row being written (one row at a time) */
let blocks = '';

const addV4 = (at: number, prefixLength: number): void => {
  blocks += `${blocks === '' ? '' : ' '}${formatIpv4(at)}/${prefixLength}`;
};

const addV6 = (at: Words, prefixLength: number): void => {
  blocks += `${blocks === '' ? '' : ' '}${v6Text(at)}/${prefixLength}`;
};

/** The columns `first,last,blocks` of the IPv4 range [start, end] (blocks space-separated). */
export function v4RangeColumns(start: number, end: number): string {
  blocks = '';
  v4Blocks(start, end, addV4);
  return `${formatIpv4(start)},${formatIpv4(end)},${blocks}`;
}

/** The columns `first,last,blocks` of the IPv6 range [start, end]; neither is changed. */
export function v6RangeColumns(start: Words, end: Words): string {
  const first = v6Text(start);
  blocks = '';
  v6Blocks(start, end, addV6);
  return `${first},${v6Text(end)},${blocks}`;
}

const groups = [0, 0, 0, 0, 0, 0, 0, 0];

export function v6Text(w: Words): string {
  groupsOfWords(groups, w[0]!, w[1]!, w[2]!, w[3]!);
  return formatIpv6(groups);
}
