// Organisation-name rules for the long tail: ASNs absent from the curated
// table. A name is weak evidence, so these rules only ever give `low`
// confidence, and they are ordered so that a word that is ambiguous alone
// ("Cloud", "Net", "Server") never outweighs a word that says "access network".
//
// Order (first match wins):
//   1. institution guard: universities, schools, cities, banks, hospitals,
//      hotels → no class (they run their own networks; "City of St. Cloud")
//   2. VPN operators by name ("… VPN …", NordVPN, Mullvad, Windscribe, …)
//   3. hosting brands (AWS, Cloudflare, Hetzner, OVH, …), written narrowly so
//      that "Amazonas Telecom" or "Google Fiber" do not match
//   4. strong hosting words: hosting/host-, datacenter, colocation, VPS/VDS,
//      "dedicated server", server-
//   5. mobile words: mobile, cellular, celular, móvil (before any weak rule, so
//      a carrier with "Cloud" in its name is mobile, not hosting)
//   6. access-network guard: telecom, communications, broadband, cable, fibre,
//      wireless, ISP, DSL… → no class (a residential ISP is not hosting)
//   7. weak hosting words: cloud, CDN, compute
import type { AsnClass } from './asn-classes.js';

export type NameClass = Exclude<AsnClass, 'isp'>;

export interface NameMatch {
  readonly class: NameClass;
  /** which rule fired, for tests and debugging */
  readonly rule: 'vpn-name' | 'hosting-brand' | 'hosting-word' | 'mobile-word' | 'cloud-word';
}

const INSTITUTION =
  /\b(universit(y|é|e|at|à|ario|aria)|universidad|college|school|academy|county|city of|municipal|ministry|government|hospital|bank|hotels?)\b|\bst\.? cloud\b/i;

const VPN_NAME =
  /vpn\b|\bvpn|nordvpn|mullvad|windscribe|surfshark|proton ag|private internet access|tunnelbear|hide\.me|\bproxy\b/i;

const HOSTING_BRAND = new RegExp(
  [
    'amazon(\\.com|\\s+(data services|web services|technologies))',
    '\\baws\\b',
    'google (llc|cloud)',
    'microsoft (corp|azure)',
    'digital ?ocean',
    '\\blinode\\b',
    '\\bakamai\\b',
    '\\bvultr\\b',
    '\\bchoopa\\b',
    '\\bthe constant company\\b',
    '\\bovh\\b',
    '\\bhetzner\\b',
    '\\bleaseweb\\b',
    '\\bcontabo\\b',
    '\\bscaleway\\b',
    'oracle (corp|cloud)',
    'alibaba',
    'tencent (cloud|computer)',
    'huawei cloud',
    'cloudflare',
    '\\bfastly\\b',
    '\\bm247\\b',
    '\\bionos\\b',
    'godaddy',
    'rackspace',
    'softlayer',
    'ibm cloud',
    'kamatera',
    'hostinger',
    '\\bnetcup\\b',
    '\\bg-core\\b',
    'zenlayer',
    'psychz',
    'quadranet',
    'colocrossing',
    'hivelocity',
    'sharktech',
    'selectel',
    'timeweb',
    '\\bxtom\\b',
    '\\bdatacamp\\b',
    'packethub',
    '\\bcdn77\\b',
    '\\bupcloud\\b',
    '\\bstrato ag\\b',
  ].join('|'),
  'i',
);

// "host" as the start or end of a word (Hostwinds, AbeloHost) or "hosting"
// anywhere (KVCHOSTING), but not "hostel"/"hospital" (the institution guard
// and the exclusion below take those).
const HOSTING_WORD =
  /hosting|\bhost(?!el|ess|ile|pital)|host\b|\bhosted\b|data ?cent(er|re)|datacenter|\bcolo(cation)?\b|colocation|\bvps\b|\bvds\b|dedicated servers?|\bserver|\bservidores\b|\bserveurs?\b/i;

const MOBILE_WORD = /\bmobile\b|\bcellular\b|\bcelular\b|\bm[oó]vil(es)?\b|\bselular\b/i;

const ACCESS_NETWORK =
  /telecom|telekom|telefon|telco|communications?\b|comunica|broadband|\bcable|fib(er|re|ra)|wireless|\bisp\b|\bdsl\b|\bftth\b|provedor|internet service|\bnet\b|\bnetworks?\b|\bonline\b/i;

const WEAK_HOSTING = /cloud|\bcdn\b|cdn\b|\bcompute\b|computing/i;

// Names that contain "VPN" but are access or enterprise networks in Latin
// America ("VPN de Mexico", "VPN Infraestrutura de Redes"), and "VPNet".
const VPN_NOT = /\bvpn (de|infraestrutura)\b|\bvpnet\b/i;

export function classifyOrgName(org: string | null): NameMatch | null {
  if (org === null) return null;
  const name = org.trim();
  if (name === '' || INSTITUTION.test(name)) return null;
  if (VPN_NAME.test(name) && !VPN_NOT.test(name)) return { class: 'vpn', rule: 'vpn-name' };
  if (HOSTING_BRAND.test(name)) return { class: 'hosting', rule: 'hosting-brand' };
  if (HOSTING_WORD.test(name)) return { class: 'hosting', rule: 'hosting-word' };
  if (MOBILE_WORD.test(name)) return { class: 'mobile', rule: 'mobile-word' };
  if (ACCESS_NETWORK.test(name)) return null;
  if (WEAK_HOSTING.test(name)) return { class: 'hosting', rule: 'cloud-word' };
  return null;
}
