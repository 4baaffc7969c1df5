// Where an answer comes from: the X-Data-Version header names the versions of
// the data sets that made it (`geoip=…; asn=…; feeds=…; geofeeds=…; overrides=…`) and the
// ETag is derived from it, so a client or a CDN can revalidate with
// If-None-Match (RFC 9110 §13.1.2) and get a 304 until the data changes.
// Both are built when the data changes (a load, a reload), never per
// request: a request compares three references and reads a prepared object.
import { createHash } from 'node:crypto';
import type { DataSetInfo } from './geoip/load.js';

export type DataPart = 'geoip' | 'asn' | 'feeds' | 'geofeeds' | 'overrides';

/** What the versions are read from; each is replaced (a new object) when its data reloads. */
export interface ProvenanceSources {
  dataSets: () => readonly DataSetInfo[];
  feeds: () => readonly { feed: string; fetchedAt: string }[];
  /** the RFC 8805 geofeeds locating GeoIP answers; absent: none */
  geofeeds?: () => readonly { feed: string; fetchedAt: string }[];
  overridesVersion: () => string;
}

export type Headers = Readonly<Record<string, string>>;

export interface Provenance {
  /** the answer's headers: the other headers given (attribution), X-Data-Version and ETag */
  headers: () => Headers;
  /** as headers(), for an answer about the caller: the caller's address is part of its ETag */
  callerHeaders: (callerIp: string) => Headers;
  /** as headers(), without an ETag: answers to a POST, which no cache revalidates */
  untagged: () => Headers;
}

/** Characters a header value and an ETag may carry, all else replaced (RFC 9110 §5.5, §8.8.3). */
function token(text: string): string {
  return text.replace(/[^A-Za-z0-9._:@+-]/g, '_');
}

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * A data set's version: its publisher's, else its build time, else its
 * files' checksums. A reconciled location table answers from more than its
 * GeoIP release (the country sources, the opt-in ones, the rule file): their
 * checksums follow as `+loc.<hash>`, so that another rule or source changes
 * the ETag along with the answers.
 */
function dataSetVersion(d: DataSetInfo): string {
  const files = (): string => shortHash(JSON.stringify(d.files));
  const own = d.version ?? d.builtAt;
  if (own === null) return files();
  return d.locationSources.length === 0 ? token(own) : `${token(own)}+loc.${files()}`;
}

/** The X-Data-Version value of answers made from `parts`. */
export function dataVersion(parts: readonly DataPart[], sources: ProvenanceSources): string {
  return parts
    .map((part) => {
      if (part === 'feeds' || part === 'geofeeds') {
        const feeds = part === 'feeds' ? sources.feeds() : (sources.geofeeds?.() ?? []);
        const value =
          feeds.length === 0
            ? 'none'
            : shortHash(feeds.map((f) => `${f.feed}@${f.fetchedAt}`).join(','));
        return `${part}=${value}`;
      }
      if (part === 'overrides') return `overrides=${token(sources.overridesVersion())}`;
      const sets = sources.dataSets().filter((d) => d.kind === part);
      return `${part}=${sets.length === 0 ? 'none' : sets.map(dataSetVersion).join('+')}`;
    })
    .join('; ');
}

/**
 * The headers of answers made from `parts`, rebuilt only when a source
 * answers another object than last time (a reload replaces them whole).
 */
export function provenance(
  parts: readonly DataPart[],
  sources: ProvenanceSources,
  other: () => Headers | null,
): Provenance {
  let seen: unknown[] = [null, null, null, null, null];
  let headers: Headers = {};
  let untagged: Headers = {};
  let tag = '';
  // the last caller's headers: a keep-alive client asks again and again
  let lastCaller = '';
  let callerHeaders: Headers = {};
  /** Brings the headers up to date; true when they changed. */
  const refresh = (): boolean => {
    const sets = sources.dataSets();
    const feeds = sources.feeds();
    const geofeeds = sources.geofeeds?.() ?? null;
    const overrides = sources.overridesVersion();
    const extra = other();
    if (
      sets === seen[0] &&
      feeds === seen[1] &&
      overrides === seen[2] &&
      extra === seen[3] &&
      geofeeds === seen[4]
    ) {
      return false;
    }
    seen = [sets, feeds, overrides, extra, geofeeds];
    const version = dataVersion(parts, sources);
    tag = createHash('sha256').update(version).digest('base64url').slice(0, 22);
    untagged = { ...(extra ?? {}), 'x-data-version': version };
    headers = { ...untagged, etag: `"${tag}"` };
    return true;
  };
  return {
    headers: () => (refresh(), headers),
    callerHeaders: (callerIp) => {
      // the same URL answers each caller differently: the address is part of
      // the tag (a parsed address's text is hex digits, '.' and ':', all
      // allowed in a tag as they are)
      if (refresh() || callerIp !== lastCaller) {
        lastCaller = callerIp;
        callerHeaders = { ...headers, etag: `"${tag}-${callerIp}"` };
      }
      return callerHeaders;
    },
    untagged: () => (refresh(), untagged),
  };
}

/**
 * Whether an If-None-Match value matches `etag` (weak comparison, as
 * RFC 9110 §13.1.2 asks for If-None-Match): `*`, or one of its listed tags.
 */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch === etag) return true;
  for (const part of ifNoneMatch.split(',')) {
    const candidate = part.trim();
    if (candidate === '*') return true;
    if ((candidate.startsWith('W/') ? candidate.slice(2) : candidate) === etag) return true;
  }
  return false;
}
