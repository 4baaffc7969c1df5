// Path matching for a handful of routes: paths without parameters in one Map
// lookup, the others walked segment by segment and compared literal by
// literal; `:name` segments capture (percent-decoded). The routes a path is
// tried against are narrowed first by its leading segments (a tree of the
// routes' literals: /geoip/v2.1/city/… meets the two city routes, not all six
// GeoIP2 ones), always keeping the table's order among those left.
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
  private readonly byFirst = new Map<string, Narrowing>();
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
      if (segments.length === 1 && !first.startsWith(':')) {
        const methods = this.statics.get(route.path) ?? new Map<string, AnyRoute>();
        methods.set(route.method, route);
        this.statics.set(route.path, methods);
      }
    }
    this.served = withHead([...new Set(routes.map((route) => route.method))]);
    const firsts = new Set(this.compiled.map((c) => c.literals[0]).filter((l) => l !== null));
    for (const first of firsts) {
      const candidates = this.compiled.filter((c) => c.literals[0] === first);
      this.byFirst.set(first!, narrowing(candidates, 1));
    }
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
        ? narrowed(this.byFirst.get(path.slice(1, firstEnd)), path, firstEnd + 1, end)
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
 * The routes (in table order) a path can still match once its segments up to
 * `depth` are known; `next`: by the path's segment at `depth`, the routes
 * whose segment there is that literal or a capture, and `captures` for any
 * other text. A handful of routes, or none left to tell apart, is a leaf.
 */
interface Narrowing {
  routes: readonly CompiledRoute[];
  next: Map<string, Narrowing> | null;
  captures: Narrowing | null;
}

const LEAF_SIZE = 2;

function narrowing(routes: readonly CompiledRoute[], depth: number): Narrowing {
  const deeper = routes.filter((c) => c.literals.length > depth);
  if (routes.length <= LEAF_SIZE || deeper.length === 0) {
    return { routes, next: null, captures: null };
  }
  const capturing = deeper.filter((c) => c.literals[depth] === null);
  const literals = new Set(deeper.map((c) => c.literals[depth]).filter((l) => l !== null));
  const next = new Map<string, Narrowing>();
  for (const literal of literals) {
    const matching = deeper.filter(
      (c) => c.literals[depth] === literal || c.literals[depth] === null,
    );
    next.set(literal!, narrowing(matching, depth + 1));
  }
  return { routes, next, captures: narrowing(capturing, depth + 1) };
}

/**
 * The routes to try for `path` (its segments from `at` to `end`): down the
 * tree as far as the path has segments. Literal segments compare as raw
 * text, as matchPath compares them.
 */
function narrowed(
  root: Narrowing | undefined,
  path: string,
  at: number,
  end: number,
): readonly CompiledRoute[] {
  let node = root;
  while (node !== undefined && node.next !== null && at <= end) {
    let next = path.indexOf('/', at);
    if (next === -1 || next > end) next = end;
    node = node.next.get(path.slice(at, next)) ?? node.captures!;
    at = next + 1;
  }
  return node?.routes ?? NONE;
}

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
