// One RDAP lookup (RFC 9082 §3.1.1 `ip/<address>`): the network query, plus
// at most one entity query when the registrant is only a handle (RIPE,
// docs/api.md, "Records", Whois), both inside the same timeout.
import { AppError } from '../../kit/errors.js';
import { getJson, type FetchFn, type HttpOptions } from './rdap-http.js';
import { chooseRegistrant, entityName } from './rdap-entities.js';
import { asIpNetwork, mapRdapNetwork, port43Of } from './rdap-map.js';
import { rirFromHost, rirFromUrl } from './registries.js';
import type { ParsedNetwork, Rir } from './types.js';

export interface RdapLookupOptions {
  fetch: FetchFn;
  timeoutMs: number;
}

export type RdapOutcome =
  | { ok: true; network: ParsedNetwork; registry: Rir | null }
  /** `port43` is the registry's whois host when its (unusable) answer named one */
  | { ok: false; error: AppError; port43: string | null };

// ARIN's largest network answers are tens of KB; 2 MiB bounds a hostile one
const MAX_BODY_BYTES = 2 * 1024 * 1024;
// RFC 7480 sets no limit; rdap.org → RIR → other RIR is 2 hops in practice
const MAX_REDIRECTS = 5;

export async function lookupRdap(url: string, options: RdapLookupOptions): Promise<RdapOutcome> {
  const http: HttpOptions = {
    fetch: options.fetch,
    signal: AbortSignal.timeout(options.timeoutMs),
    maxBytes: MAX_BODY_BYTES,
    maxRedirects: MAX_REDIRECTS,
  };
  let port43: string | null = null;
  try {
    const answer = await getJson(url, http);
    port43 = port43Of(answer.json);
    const choice = chooseRegistrant(asIpNetwork(answer.json));
    const fetched =
      choice.fetchHandle === null
        ? null
        : await fetchEntityName(answer.url, choice.fetchHandle, http);
    const network = mapRdapNetwork(answer.json, { registrantName: fetched });
    const registry = (port43 === null ? null : rirFromHost(port43)) ?? rirFromUrl(answer.url);
    return { ok: true, network, registry };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { ok: false, error, port43 };
  }
}

/** `…/ip/<addr>` → `…/entity/<handle>` on the server that answered (RFC 9082 §3.1.5). */
export function entityUrl(networkUrl: string, handle: string): string | null {
  const at = networkUrl.lastIndexOf('/ip/');
  if (at === -1) return null;
  return `${networkUrl.slice(0, at)}/entity/${encodeURIComponent(handle)}`;
}

/** The registrant's name, or null: a failed extra request never fails the lookup. */
async function fetchEntityName(
  networkUrl: string,
  handle: string,
  http: HttpOptions,
): Promise<string | null> {
  const url = entityUrl(networkUrl, handle);
  if (url === null) return null;
  try {
    return entityName((await getJson(url, http)).json);
  } catch {
    return null;
  }
}
