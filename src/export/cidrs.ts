// A CSV row's range columns, `first,last,blocks`: the fewest CIDR blocks
// covering a range exactly (ClickHouse's ip_trie and most range joins want
// prefixes), found by the range lists' cover (src/net/cidr-cover.ts).
import { formatIpv4 } from '../net/ip.js';
import { v4Blocks, v6Blocks, wordsText, type Words } from '../net/cidr-cover.js';

/** the blocks of the row being written (one row at a time) */
let blocks = '';

const addV4 = (at: number, prefixLength: number): void => {
  blocks += `${blocks === '' ? '' : ' '}${formatIpv4(at)}/${prefixLength}`;
};

const addV6 = (at: Words, prefixLength: number): void => {
  blocks += `${blocks === '' ? '' : ' '}${wordsText(at)}/${prefixLength}`;
};

/** The columns `first,last,blocks` of the IPv4 range [start, end] (blocks space-separated). */
export function v4RangeColumns(start: number, end: number): string {
  blocks = '';
  v4Blocks(start, end, addV4);
  return `${formatIpv4(start)},${formatIpv4(end)},${blocks}`;
}

/** The columns `first,last,blocks` of the IPv6 range [start, end]; neither is changed. */
export function v6RangeColumns(start: Words, end: Words): string {
  const first = wordsText(start);
  blocks = '';
  v6Blocks(start, end, addV6);
  return `${first},${wordsText(end)},${blocks}`;
}
