// GET / for browsers, and the page's assets under /assets/. GET / answers by
// content negotiation: a client preferring text/html gets the web page, every
// other client (curl, `Accept: application/json`, `*/*`, none) the JSON of
// the `json` handler, byte for byte, with `Vary: Accept` on both. The JSON
// handler (src/routes/ops-routes.ts) knows nothing of the page.
import { Buffer } from 'node:buffer';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { z } from 'zod';
import { envelope } from '../api/schemas.js';
import type { RawInput } from '../app.js';
import { AppError } from '../kit/errors.js';
import { JSON_TYPE } from '../http/exchange.js';
import {
  defineHandler,
  serialise,
  type AnyHandler,
  type RawBody,
  type RequestContext,
  type RouteInput,
} from '../http/route.js';
import { after } from '../kit/maybe-promise.js';
import type { Attribution } from '../web/html.js';
import { pageAssetUrls } from '../web/page-assets.js';
import type { AssetSet } from '../web/assets.js';
import { pickEncoding, prefersHtml } from '../web/negotiate.js';
import { renderPage } from '../web/page-html.js';
import { queryView, callerView } from '../web/page-view.js';

/** The page's own rules: nothing from another origin, no framing, no inline script or style. */
export const PAGE_CSP =
  "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const ASSET_CACHE = 'public, max-age=31536000, immutable';

export interface PageOptions {
  assets: () => Promise<AssetSet>;
  /** runs another GET route in this process (App.call): the records the page shows */
  lookup: (path: string, raw: RawInput, ctx: RequestContext) => Promise<unknown>;
  /** what the X-Data-Attribution headers of GeoIP and VPN answers say, read per request */
  attribution: {
    geoip: () => readonly Attribution[];
    vpn: () => readonly Attribution[];
  };
}

const pageQuery = z.object({
  q: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .meta({
      description:
        'Browsers only: the lookup the page shows (an IP address, a domain or a CIDR range). API clients get the same JSON with or without it.',
    }),
});

export function pageHandlers(options: PageOptions) {
  const jsonAnswer = (json: AnyHandler, input: RouteInput<unknown, unknown>) =>
    after(json.handle(input), (data): RawBody => ({
      body: `{"data":${serialise(data)}}`,
      contentType: JSON_TYPE,
      headers: { vary: 'Accept' },
    }));

  async function page(input: RouteInput<unknown, { q?: string | string[] }>): Promise<RawBody> {
    const { ctx } = input;
    const q = input.query.q;
    const query = (Array.isArray(q) ? (q[0] ?? '') : (q ?? '')).trim().slice(0, 253);
    const geoAttributions = options.attribution.geoip();
    const vpnAttributions = options.attribution.vpn();
    const attributions = { geo: geoAttributions, vpn: vpnAttributions };
    const [caller, asked, assets] = await Promise.all([
      callerView(options.lookup, ctx, attributions),
      queryView(options.lookup, query, ctx, attributions),
      options.assets(),
    ]);
    const html = renderPage({
      origin: originOf(ctx),
      key: ctx.queryKey ?? null,
      assets: pageAssetUrls(assets),
      caller,
      query,
      attributions: geoAttributions,
      ...asked,
      located: asked.located ?? (query === '' ? caller.geo : null),
    });
    return encoded(html, ctx);
  }

  return {
    /** GET /: the page for browsers, `json`'s answer for every other client */
    home: (json: AnyHandler): AnyHandler =>
      defineHandler({
        summary: json.summary,
        description: `${json.description ?? json.summary}. A browser (Accept preferring text/html) gets the web page instead (docs/web-page.md); every other client gets this JSON. Vary: Accept.`,
        tags: json.tags,
        query: pageQuery,
        response: envelope(json.response),
        errors: json.errors,
        raw: true,
        handle: (input: RouteInput<unknown, { q?: string | string[] }>) =>
          prefersHtml(input.ctx.headers) ? page(input) : jsonAnswer(json, input),
      }),
    asset: defineHandler({
      summary: 'A file of the web page',
      description:
        'The script, style sheet, icon and world map of the web page, named by their content hash: cached for a year (immutable), brotli or gzip by Accept-Encoding.',
      tags: ['Service'],
      params: z.object({ file: z.string() }),
      response: z.string(),
      errors: [],
      raw: true,
      handle: async ({ params, ctx }: RouteInput<{ file: string }, unknown>): Promise<RawBody> => {
        const asset = (await options.assets()).get(params.file);
        if (asset === undefined) {
          throw new AppError(
            'NOT_FOUND',
            'No such asset: the page names its assets by their content.',
          );
        }
        const encoding = pickEncoding(ctx.headers);
        return {
          body: asset.variants[encoding],
          contentType: asset.contentType,
          headers: {
            'cache-control': ASSET_CACHE,
            vary: 'Accept-Encoding',
            'x-content-type-options': 'nosniff',
            ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
          },
        };
      },
    }),
  };
}

/** scheme://host of the request as the browser sees it, for the page's curl commands. */
function originOf(ctx: RequestContext): string {
  const proto = ctx.headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${ctx.headers.host ?? 'localhost'}`;
}

/** The page compressed for the client: one page view, a few kilobytes, a fast setting. */
function encoded(html: string, ctx: RequestContext): RawBody {
  const encoding = pickEncoding(ctx.headers);
  const headers: Record<string, string> = {
    'content-security-policy': PAGE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    vary: 'Accept, Accept-Encoding',
  };
  const text = Buffer.from(html);
  let body: Buffer = text;
  if (encoding === 'br') {
    body = brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
  } else if (encoding === 'gzip') {
    body = gzipSync(text);
  }
  if (encoding !== 'identity') headers['content-encoding'] = encoding;
  return { body, contentType: 'text/html; charset=utf-8', headers };
}
