// Offline default for the RDAP bootstrap (RFC 9224): which RIR serves which
// part of the address space, so a lookup needs no download at start-up.
// Facts from IANA's ipv4.json (publication 2019-06-07) and ipv6.json
// (2019-11-06); IPv4 space is delegated in /8s only, written here as first
// octets and runs. 0/8, 10/8, 127/8 and 224–255/8 have no registry.
// refreshBootstrap() in bootstrap.ts replaces this with IANA's current files.
import type { Rir } from './types.js';

export const SNAPSHOT_PUBLICATION = {
  ipv4: '2019-06-07T19:00:02Z',
  ipv6: '2019-11-06T19:00:04Z',
} as const;

/** First octets of the /8s each RIR serves ("58-61" is 58, 59, 60, 61). */
export const IPV4_SLASH8: Readonly<Record<Rir, string>> = {
  afrinic: '41 102 105 154 196-197',
  apnic:
    '1 14 27 36 39 42-43 49 58-61 101 103 106 110-126 133 150 153 163 171 175 180 182-183 ' +
    '202-203 210-211 218-223',
  arin:
    '3-4 6-9 11-13 15-24 26 28-30 32-35 38 40 44-45 47-48 50 52 54-56 63-76 96-100 104 107-108 ' +
    '128-132 134-140 142-144 146-149 152 155-162 164-170 172-174 184 192 198-199 204-209 214-216',
  ripe: '2 5 25 31 37 46 51 53 57 62 77-95 109 141 145 151 176 178 185 188 193-195 212-213 217',
  lacnic: '177 179 181 186-187 189-191 200-201',
};

export const IPV6_PREFIXES: Readonly<Record<Rir, string>> = {
  afrinic: '2001:4200::/23 2c00::/12',
  apnic:
    '2001:200::/23 2001:4400::/23 2001:8000::/19 2001:a000::/20 2001:b000::/20 2001:c00::/23 ' +
    '2001:e00::/23 2400::/12',
  arin: '2001:1800::/23 2001:400::/23 2001:4800::/23 2600::/12 2610::/23 2620::/23 2630::/12',
  ripe:
    '2001:1400::/22 2001:1a00::/23 2001:1c00::/22 2001:2000::/19 2001:4000::/23 2001:4600::/23 ' +
    '2001:4a00::/23 2001:4c00::/23 2001:5000::/20 2001:600::/23 2001:800::/22 2003::/18 ' +
    '2a00::/12 2a10::/12',
  lacnic: '2001:1200::/23 2800::/12',
};

/** "58-61 101" → ["58.0.0.0/8", …, "101.0.0.0/8"] */
export function expandSlash8(runs: string): string[] {
  const out: string[] = [];
  for (const run of runs.split(' ')) {
    const [from, to = from] = run.split('-').map(Number);
    if (from === undefined || to === undefined) continue;
    for (let octet = from; octet <= to; octet++) out.push(`${octet}.0.0.0/8`);
  }
  return out;
}
