// The request paths of `npm run bench`: 100,000 distinct seeded paths per
// scenario, written one per line for the wrk script that cycles through them.
// Modelled on ../shared/bench/gen-paths.mjs (the reference perf-bar.sh's
// lists): the same IPv4 draw (mulberry32, seed 7), so the IPv4, VPN and CIDR
// lists are that script's up to its duplicates; the IPv6 list uses mulberry32
// too (seed 11), because gen-paths.mjs's LCG in doubles falls into a cycle of
// ~10,000 draws and repeats ~1,700 addresses, a cache-hit load.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const PATH_COUNT = 100_000;

/** mulberry32: a small seeded PRNG, uniform in [0, 1) */
export function mulberry32(seed: number): () => number {
  let state = seed | 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// IANA's IPv4 Special-Purpose Address Registry, every row (globally reachable
// or not), plus multicast and the reserved 240.0.0.0/4 as one /3
const SPECIAL_IPV4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.31.196.0', 24],
  ['192.52.193.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['192.175.48.0', 24],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
];
const SPECIAL_IPV4_NETS = SPECIAL_IPV4.map(([address, length]) => {
  const [a = 0, b = 0, c = 0, d = 0] = address.split('.').map(Number);
  return [((a << 24) | (b << 16) | (c << 8) | d) >>> 0, length] as const;
});

export function isSpecialIpv4(n: number): boolean {
  return SPECIAL_IPV4_NETS.some(([net, length]) => (n ^ net) >>> (32 - length) === 0);
}

const formatIpv4 = (n: number): string =>
  `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;

/** `count` distinct public (not special-purpose) IPv4 addresses */
export function randomPublicIpv4(count: number, seed = 7): string[] {
  const random = mulberry32(seed);
  const seen = new Set<number>();
  while (seen.size < count) {
    const n = Math.floor(random() * 4294967296);
    if (!isSpecialIpv4(n)) seen.add(n);
  }
  return [...seen].map(formatIpv4);
}

// The RIRs' big allocations: 2001:200::/23 onwards inside 2001::/16 (below
// 2001:200:: are IETF assignments), and 2400::/12, 2600::/12, 2800::/12,
// 2a00::/12, 2c00::/12; most addresses there fall in a DB-IP record
const IPV6_TOPS = [0x2001, 0x2400, 0x2600, 0x2800, 0x2a00, 0x2c00];

/** `count` distinct IPv6 addresses inside the RIR allocations */
export function randomRirIpv6(count: number, seed = 11): string[] {
  const random = mulberry32(seed);
  const group = () => Math.floor(random() * 0x10000);
  const seen = new Set<string>();
  while (seen.size < count) {
    const top = IPV6_TOPS[Math.floor(random() * IPV6_TOPS.length)] ?? 0x2001;
    const first = top === 0x2001 ? top : top + Math.floor(random() * 16);
    const second = top === 0x2001 ? 0x0200 + Math.floor(random() * 0x2000) : group();
    if (first === 0x2001 && second === 0x0db8) continue; // 2001:db8::/32, documentation
    const rest = Array.from({ length: 6 }, group);
    seen.add([first, second, ...rest].map((g) => g.toString(16)).join(':'));
  }
  return [...seen];
}

export type ScenarioName =
  'ip4' | 'ip6' | 'vpn' | 'cidr' | 'ipinfo' | 'ipapi' | 'geoip2city' | 'geoip2insights';

/** Writes paths-<scenario>.txt for each scenario into `dir`; returns their paths. */
export function writePathLists(dir: string): Record<ScenarioName, string> {
  const ipv4 = randomPublicIpv4(PATH_COUNT);
  const lists: Record<ScenarioName, string[]> = {
    ip4: ipv4.map((ip) => `/ip/${ip}`),
    ip6: randomRirIpv6(PATH_COUNT).map((ip) => `/ip/${ip}`),
    vpn: ipv4.map((ip) => `/ip/${ip}/vpn`),
    cidr: ipv4.map((ip, i) => `/cidr?range=${ip}/${i % 33}`),
    // the compatible formats (issue 43) over the same addresses as ip4
    ipinfo: ipv4.map((ip) => `/ipinfo/${ip}`),
    ipapi: ipv4.map((ip) => `/ip-api/json/${ip}`),
    geoip2city: ipv4.map((ip) => `/geoip/v2.1/city/${ip}`),
    geoip2insights: ipv4.map((ip) => `/geoip/v2.1/insights/${ip}`),
  };
  const files = {} as Record<ScenarioName, string>;
  for (const name of Object.keys(lists) as ScenarioName[]) {
    files[name] = join(dir, `paths-${name}.txt`);
    writeFileSync(files[name], `${lists[name].join('\n')}\n`);
  }
  return files;
}
