// Path matching for a handful of routes: paths without parameters in one Map
// lookup, the others walked segment by segment and compared literal by
// literal; `:name` segments capture (percent-decoded).
// Knowing every route's path also lets us answer 405 with `Allow` for a known
// path with another method, instead of a misleading 404.
import type { AnyRoute } from './route.js';

interface CompiledRoute {
  route: AnyRoute;
  /** per segment: the literal to compare, or null for a capture */
  literals: readonly (string | null)[];
  /** per segment: the capture's name, or null for a literal */
  names: readonly (string | null)[];
}

export type Match =
  | { kind: 'route'; route: AnyRoute; rawParams: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/** Methods no route serves on any path: refused with 405 rather than 404 (see `match`). */
const NEVER_SERVED = new Set(['CONNECT']);

export class Router {
  private readonly compiled: CompiledRoute[] = [];
  /** routes with parameters by their first (literal) segment: a path is tried against those only */
  private readonly byFirst = new Map<string, CompiledRoute[]>();
  /** routes whose first segment is a parameter: tried for every path */
  private readonly anyFirst: CompiledRoute[] = [];
  /**
   * paths of one segment without parameters: path → method → route, the
   * common case in one lookup. A path of several segments is matched with the
   * routes of its first segment (byFirst, in table order): hashing every
   * fresh /ip/… for a static path it cannot be cost a visible share of the lookup.
   */
  private readonly statics = new Map<string, Map<string, AnyRoute>>();
  /** every method some route serves, HEAD with GET: the Allow of a method served nowhere */
  private readonly served: string[];

  constructor(readonly routes: readonly AnyRoute[]) {
    for (const route of routes) {
      const segments = route.path.split('/').slice(1);
      const compiled = {
        route,
        literals: segments.map((s) => (s.startsWith(':') ? null : s)),
        names: segments.map((s) => (s.startsWith(':') ? s.slice(1) : null)),
      };
      this.compiled.push(compiled);
      const first = segments[0] ?? '';
      if (first.startsWith(':')) this.anyFirst.push(compiled);
      else this.byFirst.set(first, [...(this.byFirst.get(first) ?? []), compiled]);
      if (segments.length === 1 && !first.startsWith(':')) {
        const methods = this.statics.get(route.path) ?? new Map<string, AnyRoute>();
        methods.set(route.method, route);
        this.statics.set(route.path, methods);
      }
    }
    this.served = withHead([...new Set(routes.map((route) => route.method))]);
  }

  /** `path` is the raw path of the request (no query string). */
  match(method: string, path: string): Match {
    const lookupMethod = method === 'HEAD' ? 'GET' : method;
    // one trailing slash is forgiven
    const end =
      path.length > 1 && path.charCodeAt(path.length - 1) === SLASH ? path.length - 1 : path.length;
    let firstEnd = path.indexOf('/', 1);
    if (firstEnd === -1 || firstEnd > end) firstEnd = end;
    // a path of one segment may be a static one
    if (firstEnd === end) {
      const exact = this.statics
        .get(end === path.length ? path : path.slice(0, end))
        ?.get(lookupMethod);
      if (exact !== undefined) return { kind: 'route', route: exact, rawParams: {} };
    }
    if (path.charCodeAt(0) !== SLASH) return this.notFound(method);
    let allow: string[] | null = null;
    const candidates =
      this.anyFirst.length === 0
        ? (this.byFirst.get(path.slice(1, firstEnd)) ?? NONE)
        : this.compiled;
    for (const { route, literals, names } of candidates) {
      const rawParams = matchPath(literals, names, path, end);
      if (rawParams === null) continue;
      if (route.method === lookupMethod) return { kind: 'route', route, rawParams };
      allow ??= [];
      allow.push(route.method);
    }
    if (allow === null) return this.notFound(method);
    return { kind: 'method-not-allowed', allow: withHead(allow) };
  }

  /**
   * No route at this target. A method served on no path at all (CONNECT, whose
   * target is usually `host:port`) is refused as a method, like every other
   * refused method, with the methods the service does serve.
   */
  private notFound(method: string): Match {
    return NEVER_SERVED.has(method)
      ? { kind: 'method-not-allowed', allow: this.served }
      : { kind: 'not-found' };
  }
}

function withHead(methods: string[]): string[] {
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.push('HEAD');
  return methods;
}

const SLASH = 47;
const NONE: readonly CompiledRoute[] = [];

/**
 * The captures of `path` (up to `end`) against a pattern's segments, or null
 * when the shape differs. Walks the path in place (no split): an empty
 * segment never matches, since literals are not empty and captures must not be.
 */
function matchPath(
  literals: readonly (string | null)[],
  names: readonly (string | null)[],
  path: string,
  end: number,
): Record<string, string> | null {
  let params: Record<string, string> | null = null;
  let at = 1;
  for (let i = 0; i < literals.length; i++) {
    if (at > end) return null;
    let next = path.indexOf('/', at);
    if (next === -1 || next > end) next = end;
    const want = literals[i]!;
    if (want === null) {
      if (next === at) return null;
      params ??= {};
      params[names[i]!] = decodeSegment(path.slice(at, next));
    } else if (next - at !== want.length || !path.startsWith(want, at)) {
      return null;
    }
    at = next + 1;
  }
  return at === end + 1 ? (params ?? {}) : null;
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
