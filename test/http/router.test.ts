// Path matching: literal segments, percent-decoded parameters, 405 with the
// allowed methods for a known path, one forgiven trailing slash.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { defineHandler, route as place, type AnyRoute } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';
import { seededRandom, withSeed } from '../helpers/seeded-random.js';

function route(method: 'GET' | 'POST', path: string): AnyRoute {
  return place(
    method,
    path,
    defineHandler({
      summary: path,
      tags: [],
      response: z.unknown(),
      errors: [],
      handle: () => null,
    }),
    { limited: true },
  );
}

const router = new Router([
  route('GET', '/'),
  route('GET', '/ip'),
  route('GET', '/ip/:ip'),
  route('GET', '/ip/:ip/vpn'),
  route('POST', '/mcp'),
  // static paths of several segments, before a parameter sibling (the compatible formats')
  route('GET', '/ipinfo/json'),
  route('POST', '/ipinfo/batch'),
  route('GET', '/ipinfo/:ip'),
]);

function describeMatch(method: string, path: string): string {
  const m = router.match(method, path);
  if (m.kind === 'route') return `${m.route.method} ${m.route.path} ${JSON.stringify(m.rawParams)}`;
  if (m.kind === 'method-not-allowed') return `405 ${m.allow.join(',')}`;
  return '404';
}

describe('Router.match', () => {
  const table: { method: string; path: string; want: string; note?: string }[] = [
    { method: 'GET', path: '/', want: 'GET / {}' },
    { method: 'GET', path: '/ip', want: 'GET /ip {}' },
    { method: 'GET', path: '/ip/', want: 'GET /ip {}', note: 'one trailing slash is forgiven' },
    { method: 'GET', path: '/ip/8.8.8.8', want: 'GET /ip/:ip {"ip":"8.8.8.8"}' },
    { method: 'GET', path: '/ip/8.8.8.8/', want: 'GET /ip/:ip {"ip":"8.8.8.8"}' },
    {
      method: 'HEAD',
      path: '/ip/8.8.8.8',
      want: 'GET /ip/:ip {"ip":"8.8.8.8"}',
      note: 'HEAD is GET',
    },
    {
      method: 'GET',
      path: '/ip/fe80::1%25eth0',
      want: 'GET /ip/:ip {"ip":"fe80::1%eth0"}',
      note: 'decoded',
    },
    {
      method: 'GET',
      path: '/ip/%zz',
      want: 'GET /ip/:ip {"ip":"%zz"}',
      note: 'undecodable: passed on',
    },
    {
      method: 'GET',
      path: '/ip/a%2Fb',
      want: 'GET /ip/:ip {"ip":"a/b"}',
      note: 'an encoded slash stays in the segment',
    },
    { method: 'GET', path: '/ip/8.8.8.8/vpn', want: 'GET /ip/:ip/vpn {"ip":"8.8.8.8"}' },
    { method: 'POST', path: '/ip/8.8.8.8', want: '405 GET,HEAD' },
    { method: 'DELETE', path: '/ip', want: '405 GET,HEAD' },
    { method: 'GET', path: '/mcp', want: '405 POST', note: 'no HEAD without GET' },
    { method: 'POST', path: '/mcp', want: 'POST /mcp {}' },
    { method: 'GET', path: '/ipinfo/json', want: 'GET /ipinfo/json {}', note: 'static, deep' },
    { method: 'GET', path: '/ipinfo/json/', want: 'GET /ipinfo/json {}' },
    { method: 'POST', path: '/ipinfo/batch', want: 'POST /ipinfo/batch {}' },
    {
      method: 'GET',
      path: '/ipinfo/batch',
      want: 'GET /ipinfo/:ip {"ip":"batch"}',
      note: "another method's static path: the parameter route's",
    },
    { method: 'GET', path: '/ipinfo/8.8.8.8', want: 'GET /ipinfo/:ip {"ip":"8.8.8.8"}' },
    { method: 'GET', path: '/nope', want: '404' },
    { method: 'TRACE', path: '/nope', want: '404', note: 'a method some server may serve' },
    { method: 'CONNECT', path: '/ip', want: '405 GET,HEAD', note: "a known path's methods" },
    {
      method: 'CONNECT',
      path: 'example.test:443',
      want: '405 GET,POST,HEAD',
      note: 'served on no path: every method served',
    },
    { method: 'CONNECT', path: '/nope', want: '405 GET,POST,HEAD' },
    { method: 'GET', path: '/IP/8.8.8.8', want: '404', note: 'case-sensitive' },
    { method: 'GET', path: '//ip', want: '404', note: 'empty segment' },
    { method: 'GET', path: '/ip//8.8.8.8', want: '404' },
    { method: 'GET', path: '/ip/8.8.8.8//', want: '404' },
    { method: 'GET', path: '/ip/8.8.8.8/vpn/extra', want: '404' },
    { method: 'GET', path: 'ip', want: '404', note: 'no leading slash' },
    { method: 'GET', path: '*', want: '404' },
    { method: 'GET', path: 'http://example.test/ip', want: '404', note: 'absolute form' },
    { method: 'GET', path: '', want: '404' },
  ];
  for (const { method, path, want, note } of table) {
    it(`${method} ${JSON.stringify(path)} → ${want}${note ? ` (${note})` : ''}`, () => {
      assert.equal(describeMatch(method, path), want);
    });
  }
});

describe('Router.match against a reference split-and-compare matcher', () => {
  const routes = [
    route('GET', '/'),
    route('GET', '/ip'),
    route('GET', '/ip/:ip'),
    route('GET', '/ip/:ip/vpn'),
    route('GET', '/dns/:domain'),
    route('GET', '/dns/:ip/reverse'),
    route('POST', '/mcp'),
    route('GET', '/healthz'),
    // the compatible formats' shapes: deep literals beside captures, narrowed by the tree
    route('GET', '/ipinfo'),
    route('POST', '/ipinfo/batch'),
    route('GET', '/ipinfo/ip'),
    route('GET', '/ipinfo/city'),
    route('GET', '/ipinfo/:ip'),
    route('GET', '/ipinfo/:ip/json'),
    route('GET', '/ipinfo/:ip/:field'),
    route('GET', '/geoip/v2.1/country/me'),
    route('GET', '/geoip/v2.1/country/:ip'),
    route('GET', '/geoip/v2.1/city/me'),
    route('GET', '/geoip/v2.1/city/:ip'),
    route('POST', '/geoip/v2.1/city/:ip'),
    route('GET', '/geoip/v2.1/insights/me'),
    route('GET', '/geoip/v2.1/insights/:ip'),
  ];
  const subject = new Router(routes);

  /** The obvious algorithm: split on "/", forgive one trailing slash, refuse empty segments. */
  function reference(method: string, path: string): string {
    if (!path.startsWith('/')) return '404';
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(1, -1) : path.slice(1);
    const segments = trimmed.split('/');
    if (segments.length > 1 && segments.includes('')) return '404';
    const want = method === 'HEAD' ? 'GET' : method;
    const allow: string[] = [];
    for (const r of routes) {
      const pattern = r.path.split('/').slice(1);
      if (pattern.length !== segments.length) continue;
      const params: Record<string, string> = {};
      const same = pattern.every((p, i) => {
        const got = segments[i] ?? '';
        if (p.startsWith(':')) {
          let decoded = got;
          try {
            decoded = decodeURIComponent(got);
          } catch {
            // kept as it is
          }
          params[p.slice(1)] = decoded;
          return true;
        }
        return p === got;
      });
      if (!same) continue;
      if (r.method === want) return `${r.method} ${r.path} ${JSON.stringify(params)}`;
      allow.push(r.method);
    }
    if (allow.length === 0) return '404';
    if (allow.includes('GET')) allow.push('HEAD');
    return `405 ${allow.join(',')}`;
  }

  function actual(method: string, path: string): string {
    const m = subject.match(method, path);
    if (m.kind === 'route')
      return `${m.route.method} ${m.route.path} ${JSON.stringify(m.rawParams)}`;
    if (m.kind === 'method-not-allowed') return `405 ${m.allow.join(',')}`;
    return '404';
  }

  it('agrees on 20,000 random paths built from route-like pieces', () => {
    const pieces = [
      '',
      'ip',
      'dns',
      'vpn',
      'reverse',
      'mcp',
      'healthz',
      '8.8.8.8',
      'a%2Fb',
      '%zz',
      'x',
      'ipinfo',
      'batch',
      'city',
      'json',
      'geoip',
      'v2.1',
      'country',
      'insights',
      'me',
    ];
    const methods = ['GET', 'HEAD', 'POST', 'DELETE'];
    const random = seededRandom();
    withSeed(random, () => {
      for (let i = 0; i < 20_000; i++) {
        let path = '';
        if (random.chance(0.5)) {
          // a route's own shape, its captures filled and a segment maybe swapped, cut or added:
          // the deep paths random pieces seldom make
          const segments = random
            .pick(routes)
            .path.split('/')
            .slice(1)
            .map((s) => (s.startsWith(':') || random.chance(0.1) ? random.pick(pieces) : s));
          if (random.chance(0.2)) segments.pop();
          if (random.chance(0.2)) segments.push(random.pick(pieces));
          path = segments.map((s) => `/${s}`).join('');
        } else {
          const count = random.below(6);
          for (let j = 0; j < count; j++) path += `/${random.pick(pieces)}`;
        }
        if (path === '' || random.chance(0.2)) path += '/';
        if (random.chance(0.05)) path = path.slice(1);
        const method = random.pick(methods);
        assert.equal(actual(method, path), reference(method, path), `${method} ${path}`);
      }
    });
  });
});
