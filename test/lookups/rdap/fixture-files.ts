// Reads the fixture pairs of test/fixtures: each recorded-shape answer beside
// the record it must map to (`<name>.expected.json`).
import { readFileSync, readdirSync } from 'node:fs';
import type { ParsedNetwork, WhoisRecord } from '../../../src/lookups/rdap/types.js';

export const RDAP_FIXTURES = new URL('../../fixtures/rdap/', import.meta.url);
export const WHOIS_FIXTURES = new URL('../../fixtures/whois/', import.meta.url);

export interface FixturePair {
  name: string;
  /** JSON text (RDAP) or Latin-1-safe raw bytes (whois) */
  body: Buffer;
  expected: WhoisRecord;
}

export function fixturePairs(dir: URL, extension: '.json' | '.txt'): FixturePair[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.expected.json'))
    .map((expectedName) => {
      const name = expectedName.replace('.expected.json', extension);
      return {
        name,
        body: readFileSync(new URL(name, dir)),
        expected: JSON.parse(readFileSync(new URL(expectedName, dir), 'utf8')) as WhoisRecord,
      };
    });
}

export function readJson(dir: URL, name: string): unknown {
  return JSON.parse(readFileSync(new URL(name, dir), 'utf8')) as unknown;
}

/** What a parser alone produces: the record without the fields the client adds. */
export function parsedPart(record: WhoisRecord): ParsedNetwork {
  const parsed: Partial<WhoisRecord> = { ...record };
  delete parsed.ip;
  delete parsed.registry;
  delete parsed.source;
  return parsed as ParsedNetwork;
}
