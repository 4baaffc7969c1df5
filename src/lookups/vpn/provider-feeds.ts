// The VPN providers' server lists, open-proxy lists and datacenter lists used
// by default (docs/detection.md says what each is, its licence and cadence).
// Ids are the names the feeds are published under here, so FEED_URL_<ID>
// points any of them elsewhere (a mirror, a loopback copy in tests).
//
// Where a provider's own endpoint needs a logged-in session (Proton VPN,
// TunnelBear) or per-request timestamps (Windscribe), the default is the
// public daily copy a community project commits to GitHub, not the endpoint.
import type { FeedSpec } from './feed-updater.js';
import { parseCidrList } from './parse-text-lists.js';
import { parseMonosansJson } from './parse-proxy-lists.js';
import {
  parseAddressList,
  parseAirVpn,
  parseGluetun,
  parseIvpn,
  parseWindscribe,
} from './parse-vpn-catalogues.js';
import {
  parseMullvadApp,
  parseMullvadWeb,
  parseNordVpn,
  parsePia,
  parseProtonLogicals,
} from './parse-vpn-relays.js';

const GITHUB = 'https://raw.githubusercontent.com';
const LORD_ALFRED = `${GITHUB}/lord-alfred/ipranges/main`;
/** lord-alfred's per-provider folders that are hosting (not crawlers, relays or VPNs) */
const LORD_ALFRED_HOSTS_V4 = ['amazon', 'google', 'microsoft', 'oracle', 'digitalocean', 'linode'];
const LORD_ALFRED_HOSTS_V6 = ['amazon', 'google', 'microsoft', 'digitalocean', 'linode'];

function lordAlfred(
  providers: readonly string[],
  file: string,
): Pick<FeedSpec, 'url' | 'moreUrls'> {
  const [first = '', ...rest] = providers.map((p) => `${LORD_ALFRED}/${p}/${file}`);
  return { url: first, moreUrls: rest };
}

/**
 * minPrefixes: under the smallest real publication seen (some copies are
 * excerpts), far over an empty or gutted one.
 */
export const PROVIDER_FEEDS: readonly FeedSpec[] = [
  {
    id: 'mullvad-app',
    url: 'https://api.mullvad.net/app/v1/relays',
    kind: 'vpn',
    provider: 'mullvad',
    parser: parseMullvadApp,
    minPrefixes: 100,
  },
  {
    id: 'mullvad',
    url: 'https://api.mullvad.net/www/relays/all/',
    kind: 'vpn',
    provider: 'mullvad',
    parser: parseMullvadWeb,
    minPrefixes: 5,
  },
  {
    id: 'nordvpn',
    url: 'https://api.nordvpn.com/v1/servers?limit=20000',
    kind: 'vpn',
    provider: 'nordvpn',
    parser: parseNordVpn,
    minPrefixes: 50,
  },
  {
    id: 'pia',
    url: 'https://serverlist.piaservers.net/vpninfo/servers/v6',
    kind: 'vpn',
    provider: 'pia',
    parser: parsePia,
    minPrefixes: 200,
  },
  {
    id: 'protonvpn',
    url: `${GITHUB}/tn3w/ProtonVPN-IPs/master/protonvpn_logicals.json`,
    kind: 'vpn',
    provider: 'protonvpn',
    parser: parseProtonLogicals,
    minPrefixes: 200,
  },
  {
    id: 'windscribe',
    url: `${GITHUB}/tn3w/Windscribe-IPs/master/windscribe_serverlist.json`,
    kind: 'vpn',
    provider: 'windscribe',
    parser: parseWindscribe,
    minPrefixes: 50,
  },
  {
    id: 'ivpn',
    url: 'https://api.ivpn.net/v5/servers.json',
    kind: 'vpn',
    provider: 'ivpn',
    parser: parseIvpn,
    minPrefixes: 50,
  },
  {
    id: 'airvpn',
    url: 'https://airvpn.org/api/status/',
    kind: 'vpn',
    provider: 'airvpn',
    parser: parseAirVpn,
    minPrefixes: 20,
  },
  {
    id: 'tunnelbear',
    url: `${GITHUB}/tn3w/TunnelBear-IPs/master/tunnelbear_ips.txt`,
    kind: 'vpn',
    provider: 'tunnelbear',
    parser: parseAddressList,
    minPrefixes: 200,
  },
  {
    // the last release holding the whole file; gluetun moved its data to
    // qdm12/gluetun-servers (one file per provider) in 2026-05
    id: 'gluetun',
    url: `${GITHUB}/qdm12/gluetun/v3.40.0/internal/storage/servers.json`,
    kind: 'vpn',
    parser: parseGluetun,
    minPrefixes: 1000,
  },
  {
    id: 'proxies-monosans',
    url: `${GITHUB}/monosans/proxy-list/main/proxies.json`,
    kind: 'proxy',
    parser: parseMonosansJson,
    minPrefixes: 50,
  },
  {
    id: 'proxies-firehol',
    url: `${GITHUB}/firehol/blocklist-ipsets/master/firehol_proxies.netset`,
    kind: 'proxy',
    parser: parseCidrList,
    minPrefixes: 500,
  },
  {
    id: 'datacenter-x4b-v4',
    url: `${GITHUB}/X4BNet/lists_vpn/main/output/datacenter/ipv4.txt`,
    kind: 'hosting',
    parser: parseCidrList,
    minPrefixes: 1000,
  },
  {
    id: 'datacenter-x4b-v6',
    url: `${GITHUB}/X4BNet/lists_vpn/main/output/datacenter/ipv6.txt`,
    kind: 'hosting',
    parser: parseCidrList,
    minPrefixes: 500,
  },
  {
    id: 'datacenter-lordalfred-v4',
    ...lordAlfred(LORD_ALFRED_HOSTS_V4, 'ipv4_merged.txt'),
    kind: 'hosting',
    parser: parseCidrList,
    minPrefixes: 1000,
  },
  {
    id: 'datacenter-lordalfred-v6',
    ...lordAlfred(LORD_ALFRED_HOSTS_V6, 'ipv6_merged.txt'),
    kind: 'hosting',
    parser: parseCidrList,
    minPrefixes: 500,
  },
];
