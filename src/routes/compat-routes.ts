// The compatible surfaces (docs/api.md, "Compatible formats"): ipinfo.io's
// API under /ipinfo, ip-api.com's under /ip-api and MaxMind's GeoIP2 web
// service under /geoip/v2.1, each answering in its original's format from
// the same records as GET /ip/:ip and GET /ip/:ip/vpn (one GeoIP lookup, and
// the detection's memoised verdict where the format carries flags) — so the
// same data, overrides, geofeeds, rate limits, API keys, metrics and ETags.
// The formats themselves are src/api/compat/.
import { z } from 'zod';
import { parseBatchBody } from '../api/batch.js';
import {
  bogonMessage,
  fieldSelection,
  ipApiAddress,
  ipApiFail,
  ipApiFailure,
  ipApiWriter,
  parseIpApiBatch,
  type FieldSelection,
} from '../api/compat/ip-api.js';
import {
  ipinfoAddress,
  ipinfoBatchEntry,
  ipinfoFailure,
  ipinfoFieldText,
  ipinfoWriter,
  type IpinfoRecord,
} from '../api/compat/ipinfo.js';
import {
  geoip2Address,
  geoip2Failure,
  geoip2Memos,
  geoip2Writer,
  type GeoIp2Service,
} from '../api/compat/geoip2.js';
import { ForeignAnswer } from '../api/compat/record-parts.js';
import {
  privacyFlags,
  RecordSlices,
  writtenText,
  type Written,
} from '../api/compat/record-slices.js';

import { isBogon } from '../lookups/geoip/bogons.js';
import { withPlainParser } from '../http/validate.js';
import {
  defineHandler,
  JsonBody,
  type AnyHandler,
  type RawBody,
  type RequestContext,
} from '../http/route.js';
import { AppError } from '../kit/errors.js';
import type { GeoIpLookup } from '../lookups/geoip/geoip.js';
import type { VpnJson } from '../lookups/vpn/record-json.js';
import type { Ip } from '../net/ip.js';

/** A batch element's text: its failure, or its answer. */
const answerText = (written: Written | { failed: string }): string =>
  'failed' in written ? written.failed : writtenText(written);

type Headers = Readonly<Record<string, string>>;

export interface CompatDeps {
  geoip: GeoIpLookup;
  vpnJson: VpnJson;
  /** BATCH_MAX_ITEMS: the most addresses one batch may hold */
  maxItems: number;
  /** the versions and attribution of answers made of GeoIP and detection data (ETag) */
  headers: () => Headers | null;
  /** the same for the caller's own record, whose ETag names the caller */
  callerHeaders: (callerIp: string) => Headers | null;
  /** the same without an ETag, for batches */
  untagged: () => Headers | null;
  /** the access control's refusal of a request without a key (MaxMind's LICENSE_KEY_REQUIRED) */
  missingKeyMessage: string;
}

const anyObject = z.record(z.string(), z.unknown());

/** a path's address as text: each format refuses a bad one in its own words */
const addressParams = withPlainParser(
  z.object({
    ip: z.string().meta({
      description:
        'An IPv4 or IPv6 address (refused in the format’s own error shape when not one).',
      examples: ['8.8.8.8'],
    }),
  }),
  (input) => (typeof input['ip'] === 'string' ? { ip: input['ip'] } : undefined),
);

const ipApiQuery = withPlainParser(
  z.object({
    fields: z
      .string()
      .optional()
      .meta({ description: 'Field names separated by commas, or ip-api’s numeric bit mask.' }),
    lang: z
      .string()
      .optional()
      .meta({ description: 'Accepted; names are English (the data holds English names only).' }),
  }),
  (input) => {
    const { fields, lang } = input;
    if (fields !== undefined && typeof fields !== 'string') return undefined;
    if (lang !== undefined && typeof lang !== 'string') return undefined;
    return fields === undefined ? {} : { fields };
  },
);

export function compatHandlers(deps: CompatDeps) {
  const { geoip, vpnJson, maxItems } = deps;
  const flagsOf = privacyFlags(vpnJson);
  const slices = new RecordSlices(geoip, vpnJson);
  const callerHeaders = (ctx: RequestContext) => deps.callerHeaders(ctx.clientIp.text);
  const tagged = () => deps.headers();
  /** where the last answer's location came from (X-Location-Source), when the whole record made it */
  let source: Headers | null = null;
  /** the whole record (and the detection's flags) of an address slices do not speak for */
  const whole = (ip: Ip, flagged: boolean) => {
    const geo = geoip.lookup(ip);
    source = geoip.locationSource();
    return { geo, flags: flagged ? flagsOf(ip) : null };
  };
  /** an answer's body with its location source; `write` runs first */
  const answer = (write: () => Written): JsonBody => {
    source = null;
    const { body, bytes, encoding } = write();
    return new JsonBody(body, bytes, encoding, source);
  };

  // ipinfo
  const ipinfoText = ipinfoWriter(slices, (ip) => {
    const { geo, flags } = whole(ip, true);
    return { geo, flags: flags! };
  });
  const ipinfoBody = (ip: Ip): JsonBody => answer(() => ipinfoText(ip));
  const ipinfoRecordOf = (ip: Ip) => JSON.parse(writtenText(ipinfoText(ip))) as IpinfoRecord;
  /** one field of a record as ipinfo's text answer, with the data's headers */
  const ipinfoField = (ip: Ip, field: string, headers: Headers | null): RawBody => ({
    body: ipinfoFieldText(ipinfoRecordOf(ip), field),
    contentType: 'text/plain; charset=utf-8',
    ...(headers === null ? {} : { headers: { ...headers } }),
  });
  const fieldCommon = {
    tags: ['Compatible: ipinfo'],
    response: z.string(),
    errors: ['INVALID_IP', 'NOT_FOUND'] as AnyHandler['errors'],
    raw: true,
    failure: ipinfoFailure,
  };
  const ipinfoCommon = {
    tags: ['Compatible: ipinfo'],
    response: anyObject,
    errors: ['INVALID_IP'] as AnyHandler['errors'],
    versioned: { etag: true },
    failure: ipinfoFailure,
  };
  const ipinfo = {
    caller: defineHandler({
      ...ipinfoCommon,
      summary: 'ipinfo.io record of the caller',
      description: 'ipinfo.io’s answer for the caller’s own address (GET ipinfo.io/json).',
      headers: callerHeaders,
      handle: ({ ctx }) => ipinfoBody(ctx.clientIp),
    }),
    address: defineHandler({
      ...ipinfoCommon,
      summary: 'ipinfo.io record of an address',
      description:
        'ipinfo.io’s answer (`ip, city, region, country, loc, org, timezone`, `asn`, `privacy`), from the records of GET /ip/:ip and GET /ip/:ip/vpn; what `node-ipinfo` reads with its baseUrl set to /ipinfo. Not an address: 404 `{status, error: {title, message}}` as ipinfo answers.',
      params: addressParams,
      headers: tagged,
      handle: ({ params }) => ipinfoBody(ipinfoAddress(params.ip)),
    }),
    batch: defineHandler({
      ...ipinfoCommon,
      summary: 'ipinfo.io batch',
      description: `A JSON array of up to ${maxItems} entries, each an address or \`<address>/<field>\`; the answer is an object keyed by entry (ipinfo's batch, what \`node-ipinfo\`'s getBatch sends). One request against the rate limit.`,
      body: true,
      errors: ['BAD_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
      versioned: { etag: false },
      headers: deps.untagged,
      handle: ({ ctx }) => {
        // no prototype: an entry named `constructor` or `toString` is an entry like any other
        const out = Object.create(null) as Record<string, unknown>;
        for (const entry of parseBatchBody(ctx.bodyText ?? '', maxItems)) {
          out[entry] ??= ipinfoBatchEntry(entry, ipinfoRecordOf);
        }
        return new JsonBody(JSON.stringify(out));
      },
    }),
  };

  /** GET /ipinfo/{ip}/{field} */
  const ipinfoAddressField = defineHandler({
    ...fieldCommon,
    summary: 'ipinfo.io field of an address',
    description:
      'One field of ipinfo.io’s answer as a line of text (`curl HOST/ipinfo/8.8.8.8/city`), `asn` and `privacy` as JSON; an empty line for a field ipintel has no datum for (`hostname`, `postal`, or one the record lacks). An unknown field: 404 “Wrong field”.',
    params: withPlainParser(z.object({ ip: z.string(), field: z.string() }), (input) =>
      typeof input['ip'] === 'string' && typeof input['field'] === 'string'
        ? { ip: input['ip'], field: input['field'] }
        : undefined,
    ),
    handle: ({ params }) => ipinfoField(ipinfoAddress(params.ip), params.field, deps.headers()),
  });
  /** GET /ipinfo/{field}: one per field, for the caller (`curl HOST/ipinfo/ip`) */
  const ipinfoCallerField = (field: string) =>
    defineHandler({
      ...fieldCommon,
      summary: `ipinfo.io ${field} of the caller`,
      description: `The caller’s \`${field}\` as ipinfo.io answers GET /${field}: a line of text.`,
      handle: ({ ctx }) => ipinfoField(ctx.clientIp, field, deps.callerHeaders(ctx.clientIp.text)),
    });

  // ip-api
  const ipApiText = ipApiWriter(slices, whole);
  /** one query's answer, or ip-api's `fail` for a bogon */
  const ipApiOf = (ip: Ip, selection: FieldSelection): Written | { failed: string } =>
    isBogon(ip)
      ? { failed: ipApiFail(bogonMessage(ip), ip.text, selection) }
      : ipApiText(ip, selection);
  /** a single query's answer: a failure is ip-api's 200 `fail`, never stored by caches */
  const ipApiSingle = (ip: Ip, selection: FieldSelection): JsonBody =>
    answer(() => {
      const written = ipApiOf(ip, selection);
      if ('failed' in written) {
        throw new ForeignAnswer('INVALID_IP', { status: 200, body: written.failed });
      }
      return written;
    });
  const ipApiCommon = {
    tags: ['Compatible: ip-api'],
    response: anyObject,
    query: ipApiQuery,
    errors: ['BAD_REQUEST'] as AnyHandler['errors'],
    versioned: { etag: true },
    failure: ipApiFailure,
  };
  const ipApi = {
    caller: defineHandler({
      ...ipApiCommon,
      summary: 'ip-api.com record of the caller',
      description: 'ip-api.com’s answer for the caller’s own address (GET ip-api.com/json).',
      headers: callerHeaders,
      handle: ({ query, ctx }) => ipApiSingle(ctx.clientIp, fieldSelection(query.fields)),
    }),
    address: defineHandler({
      ...ipApiCommon,
      summary: 'ip-api.com record of an address',
      description:
        'ip-api.com’s JSON answer with `?fields=` (names or the numeric mask) and `?lang=`, from the records of GET /ip/:ip (and GET /ip/:ip/vpn for `mobile`, `proxy`, `hosting`). Not an address or a bogon: 200 `{status: "fail", message, query}` as ip-api answers.',
      params: addressParams,
      headers: tagged,
      handle: ({ params, query }) => {
        const selection = fieldSelection(query.fields);
        const ip = ipApiAddress(params.ip);
        if (ip === null) {
          throw new ForeignAnswer('INVALID_IP', {
            status: 200,
            body: ipApiFail('invalid query', params.ip, selection),
          });
        }
        return ipApiSingle(ip, selection);
      },
    }),
    batch: defineHandler({
      ...ipApiCommon,
      summary: 'ip-api.com batch',
      description: `A JSON array of up to ${maxItems} queries, each an address or \`{query, fields}\`; the answer is the array of ip-api answers in order. \`?fields=\` applies to every query without its own. One request against the rate limit.`,
      body: true,
      errors: ['BAD_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
      versioned: { etag: false },
      headers: deps.untagged,
      handle: ({ query, ctx }) => {
        const items = parseIpApiBatch(ctx.bodyText ?? '', maxItems);
        if (items === null) {
          throw new AppError(
            'BAD_REQUEST',
            'The body must be a JSON array of addresses or {"query": …, "fields": …} objects.',
          );
        }
        const shared = fieldSelection(query.fields);
        const answers = items.map((item) => {
          const selection = item.fields === undefined ? shared : fieldSelection(item.fields);
          const ip = ipApiAddress(item.query);
          return ip === null
            ? ipApiFail('invalid query', item.query, selection)
            : answerText(ipApiOf(ip, selection));
        });
        return new JsonBody(`[${answers.join(',')}]`);
      },
    }),
  };

  // MaxMind GeoIP2 web service: City and Insights write a place and an AS alike
  const detailedMemos = geoip2Memos('city', slices);
  const geoip2Texts = {
    country: geoip2Writer('country', slices, (ip) => whole(ip, false)),
    city: geoip2Writer('city', slices, (ip) => whole(ip, false), detailedMemos),
    insights: geoip2Writer('insights', slices, (ip) => whole(ip, true), detailedMemos),
  };
  const geoip2Body = (service: GeoIp2Service, ip: Ip): JsonBody =>
    answer(() => geoip2Texts[service](ip));
  const geoip2Failed = (error: unknown, failure: Parameters<typeof geoip2Failure>[1]) =>
    geoip2Failure(error, failure, deps.missingKeyMessage);
  const geoip2Handlers = (service: GeoIp2Service) => {
    const common = {
      tags: ['Compatible: MaxMind GeoIP2'],
      response: anyObject,
      errors: ['INVALID_IP'] as AnyHandler['errors'],
      versioned: { etag: true },
      failure: geoip2Failed,
      basicAuth: true,
    };
    return {
      caller: defineHandler({
        ...common,
        summary: `GeoIP2 ${service} of the caller`,
        description: `MaxMind's GeoIP2 ${service} web service answer for the caller's own address (\`me\`).`,
        headers: callerHeaders,
        handle: ({ ctx }) => geoip2Body(service, ctx.clientIp),
      }),
      address: defineHandler({
        ...common,
        summary: `GeoIP2 ${service} of an address`,
        description: `MaxMind's GeoIP2 ${service} web service answer from the records of GET /ip/:ip${service === 'insights' ? ' and GET /ip/:ip/vpn (traits.is_anonymous_vpn and friends)' : ''}, for MaxMind's clients. HTTP Basic auth: with API keys configured the licence key is the API key. Failures are MaxMind's {code, error}: IP_ADDRESS_INVALID, IP_ADDRESS_RESERVED, IP_ADDRESS_NOT_FOUND, LICENSE_KEY_REQUIRED, AUTHORIZATION_INVALID, OUT_OF_QUERIES.`,
        params: addressParams,
        headers: tagged,
        handle: ({ params, ctx }) => geoip2Body(service, geoip2Address(params.ip, ctx.clientIp)),
      }),
    };
  };

  return {
    ipinfo: { ...ipinfo, addressField: ipinfoAddressField, callerField: ipinfoCallerField },
    ipApi,
    geoip2: {
      country: geoip2Handlers('country'),
      city: geoip2Handlers('city'),
      insights: geoip2Handlers('insights'),
    },
  };
}

export type CompatHandlers = ReturnType<typeof compatHandlers>;

/** the answers' lifetime for clients: the GeoIP and detection data's, the shorter (6 h) */
export { VPN_LIFETIME as COMPAT_LIFETIME } from './vpn-routes.js';
