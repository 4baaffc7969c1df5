// Which servers the stub resolver asks: Config.dnsServers, or the system's.
import { getServers } from 'node:dns';
import { parseHostPort } from '../../net/host-port.js';
import type { DnsServer } from './transport.js';

/**
 * node:dns getServers() reports the resolv.conf servers as `1.2.3.4`,
 * `1.2.3.4:5353`, `::1` or `[::1]:5353`; unparsable entries are skipped.
 * `list` is injectable so that tests never look at the real system.
 */
export function systemServers(list: readonly string[] = getServers()): DnsServer[] {
  const servers: DnsServer[] = [];
  for (const entry of list) {
    const parsed = parseHostPort(entry, 53);
    if (parsed !== null) servers.push(parsed);
  }
  return servers;
}
