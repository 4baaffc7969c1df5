// Parsers for open-proxy lists. monosans/proxy-list's proxies.json names, per
// proxy, the address it listens on (`host`) and the address a website sees
// (`exit_ip`, different for about a quarter of them): both are proxy
// addresses. FireHOL's netset is a CIDR-per-line list (parseCidrList).
import { FeedFormatError, type FeedParser } from './feed-types.js';
import { isRecord, parseJsonArray } from './feed-validate.js';
import { HostList } from './host-list.js';
import { parseIp } from '../../../net/ip.js';

export const parseMonosansJson: FeedParser = (body, feed) => {
  const hosts = new HostList(feed);
  parseJsonArray(feed, body).forEach((item, i) => {
    if (!isRecord(item)) throw new FeedFormatError(feed, `[${i}] is not an object`);
    if (typeof item.host !== 'string') throw new FeedFormatError(feed, `[${i}].host is missing`);
    // a proxy named by host name has no address to list (none in today's list)
    if (parseIp(item.host) !== null) hosts.add(item.host, `[${i}].host`);
    hosts.add(item.exit_ip, `[${i}].exit_ip`);
  });
  return hosts.finish(null);
};
