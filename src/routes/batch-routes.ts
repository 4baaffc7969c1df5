// POST /batch: GeoIP (and, with ?include=vpn, VPN detection) of up to
// BATCH_MAX_ITEMS addresses in one request, from in-memory data. The whole
// body is one buffer of the records written as bytes from the tables
// (src/api/batch.ts); one request is one rate-limit unit, since its
// lookups are local table reads (a batch of 1,000 costs about what a few
// single requests cost in HTTP handling alone).
import { z } from 'zod';
import { batchSchema } from '../api/lookup-schemas.js';
import { defineHandler, JsonBody } from '../http/route.js';
import { batchJson, parseBatchBody, type BatchLookups } from '../api/batch.js';
import type { GeoIpLookup } from '../lookups/geoip/geoip.js';
import type { VpnJson } from '../lookups/vpn/record-json.js';

export interface BatchDeps {
  geoip: GeoIpLookup;
  vpnJson: VpnJson;
  maxItems: number;
  attribution: () => Readonly<Record<string, string>> | null;
}

const batchQuery = z.object({
  include: z
    .enum(['vpn'], {
      error:
        'The query parameter "include" takes one value, vpn (include=vpn adds the VPN record).',
    })
    .optional()
    .meta({
      description: '`vpn`: each result’s `data` also holds `vpn`, the record of GET /ip/:ip/vpn.',
    }),
});

const REQUEST_EXAMPLE = ['8.8.8.8', '2606:4700:4700::1111', '8.8.8.8', 'not-an-ip'];

const RESPONSE_EXAMPLE = {
  results: [
    {
      query: '8.8.8.8',
      data: {
        ip: '8.8.8.8',
        country: 'US',
        city: 'Mountain View',
        region: 'California',
        timezone: 'America/Los_Angeles',
        latitude: 37.422,
        longitude: -122.085,
        accuracyRadiusKm: 100,
        isp: 'Google LLC',
        asn: 'AS15169',
        org: 'Google LLC',
        bogon: false,
      },
    },
    {
      query: 'not-an-ip',
      error: { code: 'INVALID_IP', message: '"not-an-ip" is not an IPv4 or IPv6 address.' },
    },
  ],
  count: 2,
  errors: 1,
};

export function batchHandlers(deps: BatchDeps) {
  const { geoip, vpnJson, maxItems } = deps;
  const geoOnly: BatchLookups = { geoip };
  const withVpn: BatchLookups = { geoip, vpn: (ip) => vpnJson.record(ip) };
  const answer = (
    bodyText: string | undefined,
    include: 'vpn' | undefined,
    head?: string,
    tail?: string,
  ) =>
    batchJson(
      parseBatchBody(bodyText ?? '', maxItems),
      include === 'vpn' ? withVpn : geoOnly,
      head,
      tail,
    );
  return {
    lookup: defineHandler({
      summary: 'GeoIP (and VPN detection) of many addresses',
      description: `The body is a JSON array of up to ${maxItems} address strings (BATCH_MAX_ITEMS). One result per element, in the order sent: {query, data} with the record of GET /ip/:ip (plus \`vpn\`, the record of GET /ip/:ip/vpn, with ?include=vpn), or {query, error} when the element is not an address. Duplicates are computed once. More elements than the limit: 413 PAYLOAD_TOO_LARGE; a body that is not an array of strings: 400 BAD_REQUEST; a body over 1 MiB: 413. The whole batch is one request against the rate limit. Only the in-memory lookups are batched (whois, DNS and blacklists ask upstream servers).`,
      tags: ['GeoIP'],
      query: batchQuery,
      body: true,
      requestBody: {
        schema: z.array(z.string()).max(maxItems),
        description: `A JSON array of at most ${maxItems} IPv4 or IPv6 addresses as strings.`,
        example: REQUEST_EXAMPLE,
      },
      response: batchSchema,
      responseExample: RESPONSE_EXAMPLE,
      errors: ['BAD_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
      headers: deps.attribution,
      versioned: { etag: false },
      handle: ({ query, ctx }) => {
        const body = answer(ctx.bodyText, query.include, '{"data":', '}');
        return new JsonBody(body, body.length);
      },
      record: ({ query, ctx }) =>
        JSON.parse(answer(ctx.bodyText, query.include).toString('utf8')) as unknown,
    }),
  };
}
