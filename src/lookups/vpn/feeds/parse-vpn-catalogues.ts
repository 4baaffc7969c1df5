// Parsers for the other VPN server catalogues: Windscribe, IVPN, AirVPN,
// TunnelBear (a community-kept address list) and gluetun's servers.json,
// which carries some twenty providers and so names the service per address.
import { FeedFormatError, type FeedParser } from './feed-types.js';
import { contentLines, parseJsonObject, requireArray, requireRecord } from './feed-validate.js';
import { HostList } from './host-list.js';
import { providerIdOfGluetunKey } from '../providers.js';

function eachRecord(
  feed: string,
  value: unknown,
  where: string,
  visit: (item: Record<string, unknown>, where: string) => void,
): void {
  requireArray(feed, value, where).forEach((item, i) => {
    visit(requireRecord(feed, item, `${where}[${i}]`), `${where}[${i}]`);
  });
}

const WINDSCRIBE_NODE_FIELDS = ['ip', 'ip2', 'ip3', 'ip4', 'ip5'] as const;

/**
 * Windscribe mob-v2 server list: `data[].groups[]` with `ping_ip` and, for
 * free groups only, `nodes[].ip/ip2/ip3`. Premium groups name host names
 * (`wg_endpoint`…) instead; those are not resolved here.
 */
export const parseWindscribe: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const hosts = new HostList(feed);
  eachRecord(feed, doc.data, 'data', (location, where) => {
    if (location.groups === undefined) return;
    eachRecord(feed, location.groups, `${where}.groups`, (group, at) => {
      hosts.add(group.ping_ip, `${at}.ping_ip`);
      if (group.nodes === undefined) return;
      eachRecord(feed, group.nodes, `${at}.nodes`, (node, nodeAt) => {
        for (const field of WINDSCRIBE_NODE_FIELDS) hosts.add(node[field], `${nodeAt}.${field}`);
      });
    });
  });
  return hosts.finish(null);
};

/**
 * IVPN v5 servers.json: `wireguard[]` and `openvpn[]` gateways with
 * `hosts[].host` and `.v2ray`. `local_ip` (tunnel-internal) and `config`
 * (API and DNS servers) are not VPN exits.
 */
export const parseIvpn: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const hosts = new HostList(feed);
  for (const family of ['wireguard', 'openvpn'] as const) {
    eachRecord(feed, doc[family], family, (gateway, where) => {
      eachRecord(feed, gateway.hosts, `${where}.hosts`, (host, at) => {
        hosts.add(host.host, `${at}.host`);
        hosts.add(host.v2ray, `${at}.v2ray`);
      });
    });
  }
  return hosts.finish(null);
};

const AIRVPN_FIELDS = [1, 2, 3, 4].flatMap((n) => [`ip_v4_in${n}`, `ip_v6_in${n}`]);

/**
 * AirVPN /api/status/: only `servers[]` carry addresses; the `countries`,
 * `continents` and `planets` aggregates reuse the same keys for host names.
 */
export const parseAirVpn: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const hosts = new HostList(feed);
  eachRecord(feed, doc.servers, 'servers', (server, where) => {
    for (const field of AIRVPN_FIELDS) hosts.add(server[field], `${where}.${field}`);
  });
  return hosts.finish(null);
};

/** One address per line with `#` comments (tn3w's TunnelBear list). */
export const parseAddressList: FeedParser = (body, feed) => {
  const hosts = new HostList(feed);
  for (const { line, number } of contentLines(body)) hosts.add(line, `line ${number}`);
  return hosts.finish(null);
};

/**
 * gluetun internal/storage/servers.json: `{version, <provider>: {version,
 * timestamp, servers[{ips[]…}]}}`. Every address keeps its provider; the
 * newest provider timestamp is the publication time.
 */
/** A DNS name of at least two labels (gluetun's `hostname`; some hold an address instead). */
const HOST_NAME =
  /^(?=.{1,253}$)(?!\d+(\.\d+){3}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

export const parseGluetun: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const hosts = new HostList(feed);
  let newest = 0;
  // the servers' names, resolved at update time to today's addresses
  const names = new Map<string, string>();
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'version') continue;
    const block = requireRecord(feed, value, key);
    const provider = providerIdOfGluetunKey(key);
    if (typeof block.timestamp === 'number') newest = Math.max(newest, block.timestamp);
    eachRecord(feed, block.servers, `${key}.servers`, (server, where) => {
      hosts.addAll(server.ips, `${where}.ips`, provider);
      const name = typeof server.hostname === 'string' ? server.hostname.trim().toLowerCase() : '';
      if (HOST_NAME.test(name) && !names.has(name)) names.set(name, provider);
    });
  }
  if (hosts.size === 0) throw new FeedFormatError(feed, 'no provider with servers');
  const parsed = hosts.finish(newest === 0 ? null : new Date(newest * 1000).toISOString(), true);
  return { ...parsed, hostNames: [...names.keys()], hostProviders: [...names.values()] };
};
