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
import { parseAsnList } from './parse-asn-lists.js';
import {
  parseAirVpnWatch,
  parseAzireVpnWatch,
  parseMullvadWatch,
  parsePiaWatch,
  parseWindscribeWatch,
} from './parse-watchers.js';
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
/** scriptzteam's watchers: the README of each repository's default branch */
const WATCH = `${GITHUB}/scriptzteam`;
const NULLIFIED = `${GITHUB}/NullifiedCode/ASN-Lists/HEAD`;
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
 * Community lists of hosting and VPN-hosting autonomous systems. They mark
 * an AS as hosting only (reason `asn-list:<id>`), never as VPN: the VPN
 * lists name the hosting companies VPN services rent from (M247, Datacamp,
 * Vultr), whose space is mostly other customers' (docs/detection.md).
 * minPrefixes counts AS numbers: about a third of each list today.
 */
const ASN_LISTS: readonly FeedSpec[] = (
  [
    ['asn-x4b-vpn', `${GITHUB}/X4BNet/lists_vpn/main/input/vpn/ASN.txt`, 5],
    ['asn-x4b-datacenter', `${GITHUB}/X4BNet/lists_vpn/main/input/datacenter/ASN.txt`, 300],
    ['asn-brianhama', `${GITHUB}/brianhama/bad-asn-list/HEAD/bad-asn-list.csv`, 200],
    ['asn-nullified-vpn', `${NULLIFIED}/VPN%20Providers/ASN.txt`, 30],
    ['asn-nullified-vps', `${NULLIFIED}/VPS%20Providers/ASN.txt`, 50],
    ['asn-nullified-all', `${NULLIFIED}/all.txt`, 300],
    ['asn-nullified-mullvad', `${NULLIFIED}/VPN%20Providers/mullvad/mullvad.txt`, 10],
    ['asn-nullified-nordvpn', `${NULLIFIED}/VPN%20Providers/nord/nord.txt`, 15],
    ['asn-nullified-protonvpn', `${NULLIFIED}/VPN%20Providers/proton/proton.txt`, 10],
  ] as const
).map(([id, url, minPrefixes]) => ({
  id,
  url,
  kind: 'hosting' as const,
  parser: parseAsnList,
  minPrefixes,
}));

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
  // provider-list watchers: each provider's own API rendered hourly or more
  // often as a Markdown table (docs/detection.md)
  {
    id: 'airvpnwatch',
    url: `${WATCH}/AirVPNWatch/HEAD/Readme.md`,
    kind: 'vpn',
    provider: 'airvpn',
    parser: parseAirVpnWatch,
    minPrefixes: 200,
  },
  {
    id: 'azirevpnwatch',
    url: `${WATCH}/AzireVPNWatch/HEAD/README.md`,
    kind: 'vpn',
    provider: 'azirevpn',
    parser: parseAzireVpnWatch,
    minPrefixes: 20,
  },
  {
    id: 'mullvadwatch',
    url: `${WATCH}/MullvadWatch/HEAD/Readme.md`,
    kind: 'vpn',
    provider: 'mullvad',
    parser: parseMullvadWatch,
    minPrefixes: 200,
  },
  {
    id: 'piawatch',
    url: `${WATCH}/PrivateInternetAccessWatch/HEAD/Readme.md`,
    kind: 'vpn',
    provider: 'pia',
    parser: parsePiaWatch,
    minPrefixes: 200,
  },
  {
    id: 'windscribewatch',
    url: `${WATCH}/WindscribeWatch/HEAD/Readme.md`,
    kind: 'vpn',
    provider: 'windscribe',
    parser: parseWindscribeWatch,
    minPrefixes: 200,
  },
  ...ASN_LISTS,
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
