// Parsers for VPN providers' own relay lists: Mullvad (app and website APIs),
// NordVPN, Private Internet Access and Proton VPN. Each keeps the addresses a
// website sees when a customer connects (see SOURCES quirks in docs/detection.md):
// relay ingress addresses, not bridges, API hosts or tunnel-internal gateways.
import type { FeedParser } from './feed-types.js';
import {
  isRecord,
  parseJsonArray,
  parseJsonObject,
  requireArray,
  requireRecord,
} from './feed-validate.js';
import { HostList } from './host-list.js';

/**
 * api.mullvad.net/app/v1/relays: `wireguard.relays[]` with `ipv4_addr_in`,
 * `ipv6_addr_in` and the extra ingress addresses `shadowsocks_extra_addr_in[]`
 * and `features.quic.addr_in[]`. Bridges (`bridge.relays`) only forward to a
 * relay, so a website never sees them: left out. Inactive relays stay: the
 * address is still Mullvad's.
 */
export const parseMullvadApp: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const wireguard = requireRecord(feed, doc.wireguard, 'wireguard');
  const hosts = new HostList(feed);
  requireArray(feed, wireguard.relays, 'wireguard.relays').forEach((item, i) => {
    const where = `wireguard.relays[${i}]`;
    const relay = requireRecord(feed, item, where);
    hosts.add(relay.ipv4_addr_in, `${where}.ipv4_addr_in`);
    hosts.add(relay.ipv6_addr_in, `${where}.ipv6_addr_in`);
    hosts.addAll(relay.shadowsocks_extra_addr_in, `${where}.shadowsocks_extra_addr_in`);
    const quic = isRecord(relay.features) ? relay.features.quic : undefined;
    if (isRecord(quic)) hosts.addAll(quic.addr_in, `${where}.features.quic.addr_in`);
  });
  return hosts.finish(null);
};

/** api.mullvad.net/www/relays/all/: a flat array; `type: "bridge"` entries left out. */
export const parseMullvadWeb: FeedParser = (body, feed) => {
  const hosts = new HostList(feed);
  parseJsonArray(feed, body).forEach((item, i) => {
    const relay = requireRecord(feed, item, `[${i}]`);
    if (relay.type === 'bridge') return;
    hosts.add(relay.ipv4_addr_in, `[${i}].ipv4_addr_in`);
    hosts.add(relay.ipv6_addr_in, `[${i}].ipv6_addr_in`);
  });
  return hosts.finish(null);
};

/** api.nordvpn.com/v1/servers: `station`, `ipv6_station` ("" when none), `ips[].ip.ip`. */
export const parseNordVpn: FeedParser = (body, feed) => {
  const hosts = new HostList(feed);
  parseJsonArray(feed, body).forEach((item, i) => {
    const server = requireRecord(feed, item, `[${i}]`);
    hosts.add(server.station, `[${i}].station`);
    hosts.add(server.ipv6_station, `[${i}].ipv6_station`);
    if (server.ips === undefined) return;
    requireArray(feed, server.ips, `[${i}].ips`).forEach((entry, j) => {
      const ip = requireRecord(feed, entry, `[${i}].ips[${j}]`).ip;
      if (ip !== undefined)
        hosts.add(requireRecord(feed, ip, `[${i}].ips[${j}].ip`).ip, `[${i}].ips[${j}]`);
    });
  });
  return hosts.finish(null);
};

/** The connection groups of a PIA region; `meta` holds PIA's API servers, not VPN exits. */
const PIA_GROUPS = ['wg', 'ovpnudp', 'ovpntcp', 'ikev2'] as const;

/**
 * serverlist.piaservers.net/vpninfo/servers/v6: one JSON line, a blank line
 * and a base64 signature. Only the first line is JSON.
 */
export const parsePia: FeedParser = (body, feed) => {
  const newline = body.indexOf('\n');
  const doc = parseJsonObject(feed, newline === -1 ? body : body.slice(0, newline));
  const hosts = new HostList(feed);
  requireArray(feed, doc.regions, 'regions').forEach((item, i) => {
    const region = requireRecord(feed, item, `regions[${i}]`);
    const servers = requireRecord(feed, region.servers, `regions[${i}].servers`);
    for (const group of PIA_GROUPS) {
      if (servers[group] === undefined) continue;
      const where = `regions[${i}].servers.${group}`;
      requireArray(feed, servers[group], where).forEach((s, j) => {
        hosts.add(requireRecord(feed, s, `${where}[${j}]`).ip, `${where}[${j}].ip`);
      });
    }
  });
  return hosts.finish(null);
};

/**
 * Proton VPN `/vpn/logicals`: `LogicalServers[].Servers[]` with `EntryIP`
 * (where the client connects) and `ExitIP` (what a website sees). Only exits.
 */
export const parseProtonLogicals: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const hosts = new HostList(feed);
  requireArray(feed, doc.LogicalServers, 'LogicalServers').forEach((item, i) => {
    const logical = requireRecord(feed, item, `LogicalServers[${i}]`);
    const where = `LogicalServers[${i}].Servers`;
    requireArray(feed, logical.Servers, where).forEach((s, j) => {
      hosts.add(requireRecord(feed, s, `${where}[${j}]`).ExitIP, `${where}[${j}].ExitIP`);
    });
  });
  return hosts.finish(null);
};
