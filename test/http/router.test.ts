// Path matching: literal segments, percent-decoded parameters, 405 with the
// allowed methods for a known path, one forgiven trailing slash.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { defineRoute, type AnyRoute } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';

function route(method: 'GET' | 'POST', path: string): AnyRoute {
  return defineRoute({
    method,
    path,
    summary: path,
    tags: [],
    response: z.unknown(),
    errors: [],
    rateLimited: true,
    handle: () => null,
  });
}

const router = new Router([
  route('GET', '/'),
  route('GET', '/ip'),
  route('GET', '/ip/:ip'),
  route('GET', '/ip/:ip/vpn'),
  route('POST', '/mcp'),
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
    { method: 'GET', path: '/nope', want: '404' },
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
