// Path matching for a handful of routes: paths are split into segments and
// compared literal by literal; `:name` segments capture (percent-decoded).
// Knowing every route's path also lets us answer 405 with `Allow` for a known
// path with another method, instead of a misleading 404.
import type { AnyRoute } from './route.js';

interface CompiledRoute {
  route: AnyRoute;
  segments: readonly string[];
}

export type Match =
  | { kind: 'route'; route: AnyRoute; rawParams: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

export class Router {
  /** by number of segments */
  private readonly compiled = new Map<number, CompiledRoute[]>();
  /** paths without parameters: path → method → route, the common case in one lookup */
  private readonly statics = new Map<string, Map<string, AnyRoute>>();

  constructor(readonly routes: readonly AnyRoute[]) {
    for (const route of routes) {
      const segments = route.path.split('/').slice(1);
      const sameLength = this.compiled.get(segments.length) ?? [];
      sameLength.push({ route, segments });
      this.compiled.set(segments.length, sameLength);
      if (!segments.some((segment) => segment.startsWith(':'))) {
        const methods = this.statics.get(route.path) ?? new Map<string, AnyRoute>();
        methods.set(route.method, route);
        this.statics.set(route.path, methods);
      }
    }
  }

  /** `path` is the raw path of the request (no query string). */
  match(method: string, path: string): Match {
    const lookupMethod = method === 'HEAD' ? 'GET' : method;
    const exact = this.statics
      .get(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)
      ?.get(lookupMethod);
    if (exact !== undefined) return { kind: 'route', route: exact, rawParams: {} };
    const segments = splitPath(path);
    if (segments === null) return { kind: 'not-found' };
    let allow: string[] | null = null;
    for (const { route, segments: pattern } of this.compiled.get(segments.length) ?? []) {
      const rawParams = matchSegments(pattern, segments);
      if (rawParams === null) continue;
      if (route.method === lookupMethod) return { kind: 'route', route, rawParams };
      allow ??= [];
      allow.push(route.method);
    }
    if (allow === null) return { kind: 'not-found' };
    if (allow.includes('GET')) allow.push('HEAD');
    return { kind: 'method-not-allowed', allow };
  }
}

/** "/ip/8.8.8.8/" → ["ip", "8.8.8.8"]; one trailing slash is forgiven, empty segments are not. */
function splitPath(path: string): string[] | null {
  if (!path.startsWith('/')) return null;
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(1, -1) : path.slice(1);
  const segments = trimmed.split('/');
  if (segments.length > 1 && segments.includes('')) return null;
  return segments;
}

/** null when the shape differs */
function matchSegments(
  pattern: readonly string[],
  segments: readonly string[],
): Record<string, string> | null {
  if (pattern.length !== segments.length) return null;
  let params: Record<string, string> | null = null;
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i] ?? '';
    const got = segments[i] ?? '';
    if (want.startsWith(':')) {
      params ??= {};
      params[want.slice(1)] = decodeSegment(got);
    } else if (want !== got) {
      return null;
    }
  }
  return params ?? {};
}

/** Undecodable escapes are passed on as they are: every parameter schema refuses a stray "%". */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
