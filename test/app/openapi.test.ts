// GET /openapi.json: an OpenAPI 3.1 document generated from the route table,
// and live responses that validate against the schemas it publishes (checked
// by an independent validator) and against the zod schemas in src/api.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { z } from 'zod';
import {
  cidrRecordSchema,
  envelope,
  errorBodySchema,
  geoIpRecordSchema,
  healthSchema,
  readinessSchema,
  serviceInfoSchema,
} from '../../src/api/schemas.js';
import { ERROR_STATUS } from '../../src/kit/errors.js';
import { SchemaValidator } from '../helpers/json-schema.js';
import { get, startService, type TestService } from '../helpers/service.js';

interface Operation {
  parameters: { name: string; in: string; required: boolean; schema: unknown }[];
  responses: Record<
    string,
    { content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }
  >;
}
interface Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

let service: TestService;
let doc: Document;
let validator: SchemaValidator;
before(async () => {
  // a low limit so that a 429 is reached; each request below names its own client
  service = await startService({ env: { RATE_LIMIT_MAX: '3', TRUST_PROXY: 'true' } });
  const res = await get(service.baseUrl, '/openapi.json');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  doc = res.body as Document;
  validator = new SchemaValidator(doc.components.schemas);
});
after(() => service.close());

function operation(method: string, path: string): Operation {
  const op = doc.paths[path]?.[method.toLowerCase()];
  assert.ok(op, `${method} ${path} is documented`);
  return op;
}

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1.0 with info and components', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.title, 'ipintel');
    assert.equal(typeof doc.info.version, 'string');
    assert.ok(doc.components.schemas['Error']);
    assert.ok(doc.components.schemas['GeoIpRecord']);
  });

  it('documents every route of the router, with its method, path parameters and responses', () => {
    const routes = service.app.router.routes;
    assert.ok(routes.length >= 7);
    for (const route of routes) {
      const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
      const op = operation(route.method, path);
      const pathParams = [...route.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]);
      for (const name of pathParams) {
        const param = op.parameters.find((p) => p.name === name && p.in === 'path');
        assert.ok(param, `${route.path}: path parameter ${name}`);
        assert.equal(param.required, true);
      }
      assert.ok(op.responses['200'], `${route.path}: 200`);
      const statuses = new Set([...route.errors.map((code) => ERROR_STATUS[code]), 404, 405, 500]);
      if (route.rateLimited) statuses.add(429);
      for (const status of statuses) {
        const response = op.responses[String(status)];
        assert.ok(response, `${route.method} ${route.path}: ${status}`);
        assert.deepEqual(response.content?.['application/json']?.schema, {
          $ref: '#/components/schemas/Error',
        });
      }
    }
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m} ${p}`),
    );
    assert.equal(documented.length, routes.length, 'nothing documented that is not routed');
  });

  it('/ip/{ip} documents 400 and its ip path parameter; /cidr its range query parameter', () => {
    const ip = operation('GET', '/ip/{ip}');
    assert.ok(ip.responses['400']);
    assert.deepEqual(
      ip.parameters.map((p) => [p.name, p.in]),
      [
        ['ip', 'path'],
        ['If-None-Match', 'header'],
      ],
    );
    // revalidation: a 304, and the data version and tag on the answer
    assert.ok(ip.responses['304']);
    assert.deepEqual(Object.keys(ip.responses['200']?.headers ?? {}), ['X-Data-Version', 'ETag']);
    const cidr = operation('GET', '/cidr');
    assert.ok(cidr.responses['400']);
    const range = cidr.parameters.find((p) => p.name === 'range');
    assert.equal(range?.in, 'query');
    assert.equal(range.required, true);
  });

  it('/readyz documents 503 and is not rate limited', () => {
    const op = operation('GET', '/readyz');
    assert.ok(op.responses['503']);
    assert.equal(op.responses['429'], undefined);
  });

  it('every $ref resolves', () => {
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1] ?? '');
    assert.ok(refs.length > 0);
    for (const ref of refs) {
      assert.ok(ref.startsWith('#/components/schemas/'), ref);
      assert.ok(doc.components.schemas[ref.slice('#/components/schemas/'.length)], ref);
    }
  });
});

describe('live responses validate against the published schemas', () => {
  const cases: { path: string; docPath: string; status: number; zod: z.ZodType }[] = [
    { path: '/ip/8.8.8.8', docPath: '/ip/{ip}', status: 200, zod: envelope(geoIpRecordSchema) },
    {
      path: '/ip/2606:4700:4700::1111',
      docPath: '/ip/{ip}',
      status: 200,
      zod: envelope(geoIpRecordSchema),
    },
    { path: '/ip/10.0.0.1', docPath: '/ip/{ip}', status: 200, zod: envelope(geoIpRecordSchema) },
    { path: '/ip/010.1.1.1', docPath: '/ip/{ip}', status: 400, zod: errorBodySchema },
    {
      path: '/cidr?range=10.1.2.3/13',
      docPath: '/cidr',
      status: 200,
      zod: envelope(cidrRecordSchema),
    },
    { path: '/cidr?range=10.0.0.0/33', docPath: '/cidr', status: 400, zod: errorBodySchema },
    { path: '/healthz', docPath: '/healthz', status: 200, zod: envelope(healthSchema) },
    { path: '/readyz', docPath: '/readyz', status: 200, zod: envelope(readinessSchema) },
    { path: '/', docPath: '/', status: 200, zod: envelope(serviceInfoSchema) },
  ];
  cases.forEach(({ path, docPath, status, zod }, i) => {
    it(`${path} → ${status}`, async () => {
      const res = await get(service.baseUrl, path, {
        headers: { 'x-forwarded-for': `198.51.100.${i}` },
      });
      assert.equal(res.status, status);
      const schema = operation('GET', docPath).responses[String(status)]?.content?.[
        'application/json'
      ]?.schema;
      assert.deepEqual(validator.validate(schema, res.body), []);
      assert.ok(
        zod.safeParse(res.body).success,
        JSON.stringify(zod.safeParse(res.body).error?.issues),
      );
    });
  });

  it('429 and 404 and 405 bodies validate against the Error schema', async () => {
    const bodies = [];
    const headers = { 'x-forwarded-for': '203.0.113.77' };
    bodies.push(await get(service.baseUrl, '/ip/8.8.8.8', { method: 'DELETE', headers }));
    for (let i = 0; i < 3; i++) bodies.push(await get(service.baseUrl, '/nope', { headers }));
    assert.deepEqual(
      bodies.map((b) => b.status),
      [405, 404, 404, 429],
    );
    for (const res of bodies) {
      assert.deepEqual(validator.validate({ $ref: '#/components/schemas/Error' }, res.body), []);
      assert.ok(errorBodySchema.safeParse(res.body).success);
    }
  });

  it('the validator is not a rubber stamp: a wrong body is refused', () => {
    const schema = operation('GET', '/ip/{ip}').responses['200']?.content?.['application/json']
      ?.schema;
    const bad = { data: { ip: '8.8.8.8', country: 'USA', asn: '15169', bogon: 'no' } };
    const problems = validator.validate(schema, bad);
    for (const expected of ['country', 'asn', 'bogon', 'missing city']) {
      assert.ok(
        problems.some((p) => p.includes(expected)),
        `${expected} in ${problems.join('; ')}`,
      );
    }
  });
});
