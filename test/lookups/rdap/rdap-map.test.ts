import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../src/kit/errors.js';
import { entityName } from '../../../src/lookups/rdap/rdap-entities.js';
import { mapRdapNetwork } from '../../../src/lookups/rdap/rdap-map.js';
import { RDAP_FIXTURES, fixturePairs, parsedPart, readJson } from './fixture-files.js';

const vcard = (...rows: unknown[][]) => ['vcard', [['version', {}, 'text', '4.0'], ...rows]];
const network = (extra: Record<string, unknown>) => ({
  objectClassName: 'ip network',
  handle: 'NET-1',
  startAddress: '23.0.0.0',
  endAddress: '23.0.0.255',
  ...extra,
});

void describe('RDAP → Whois record, per registry fixture', () => {
  for (const { name, body, expected } of fixturePairs(RDAP_FIXTURES, '.json')) {
    void test(`${name} maps to its expected record`, () => {
      // RIPE's registrant is a bare handle; the client fetches entity_<handle>.json
      const fetched = name === 'ripe_62.0.2.1.json' ? 'entity_ORG-EXA1-RIPE.json' : null;
      const registrantName = fetched ? entityName(readJson(RDAP_FIXTURES, fetched)) : null;
      const got = mapRdapNetwork(JSON.parse(body.toString('utf8')), { registrantName });
      const want = parsedPart(expected);
      assert.deepEqual(got, want);
    });
  }
});

void describe('registrant rules (docs/api.md, Whois)', () => {
  const registrant = (fn: string | null, handle: string, roles = ['registrant']) => ({
    handle,
    roles,
    ...(fn === null
      ? {}
      : { vcardArray: vcard(['fn', {}, 'text', fn], ['kind', {}, 'text', 'org']) }),
  });
  const table: { name: string; entities: unknown; want: string | null }[] = [
    { name: 'registrant fn', entities: [registrant('Acme', 'ACME')], want: 'Acme' },
    {
      name: 'maintainers tagged registrant are skipped',
      entities: [registrant('Maint Person', 'ACME-MNT'), registrant('Acme', 'ACME')],
      want: 'Acme',
    },
    {
      name: 'bare ORG- handle without a fetch result → the handle',
      entities: [registrant(null, 'EX-MNT'), registrant(null, 'ORG-AC1-RIPE')],
      want: 'ORG-AC1-RIPE',
    },
    {
      name: 'no roles at all → the org-kind vCard (AFRINIC 2015)',
      entities: [
        {
          handle: 'X',
          vcardArray: vcard(['kind', {}, 'text', 'org'], ['fn', {}, 'text', 'Org Kind']),
        },
      ],
      want: 'Org Kind',
    },
    {
      name: 'nested registrant counts when no top-level one exists',
      entities: [{ handle: 'TOP', roles: ['abuse'], entities: [registrant('Nested Co', 'N1')] }],
      want: 'Nested Co',
    },
    { name: 'nothing usable → null', entities: [registrant(null, 'ONLY-MNT')], want: null },
    { name: 'entities not an array → null', entities: 'oops', want: null },
  ];
  for (const { name, entities, want } of table) {
    void test(name, () => {
      assert.equal(mapRdapNetwork(network({ entities })).registrant, want);
    });
  }

  void test('a fetched entity name wins over the bare handle', () => {
    const got = mapRdapNetwork(network({ entities: [registrant(null, 'ORG-AC1-RIPE')] }), {
      registrantName: 'Acme B.V.',
    });
    assert.equal(got.registrant, 'Acme B.V.');
  });
});

void describe('field normalisation', () => {
  const table: { name: string; extra: Record<string, unknown>; field: string; want: unknown }[] = [
    { name: 'country ZZ → null', extra: { country: 'ZZ' }, field: 'country', want: null },
    { name: 'country lower case → upper', extra: { country: 'nl' }, field: 'country', want: 'NL' },
    { name: 'country EU is kept', extra: { country: 'EU' }, field: 'country', want: 'EU' },
    {
      name: 'country garbage → null',
      extra: { country: 'Netherlands' },
      field: 'country',
      want: null,
    },
    { name: 'country a number → null', extra: { country: 31 }, field: 'country', want: null },
    {
      name: 'absent country → ISO code from the registrant vCard cc parameter',
      extra: {
        entities: [
          {
            roles: ['registrant'],
            vcardArray: vcard(
              ['fn', {}, 'text', 'A'],
              ['adr', { cc: 'ca' }, 'text', ['', '', '', '', '', '', '']],
            ),
          },
        ],
      },
      field: 'country',
      want: 'CA',
    },
    {
      name: 'a full country name in the address is not guessed from',
      extra: {
        entities: [
          {
            roles: ['registrant'],
            vcardArray: vcard(
              ['fn', {}, 'text', 'A'],
              [
                'adr',
                { label: 'X\nUnited States' },
                'text',
                ['', '', '', '', '', '', 'United States'],
              ],
            ),
          },
        ],
      },
      field: 'country',
      want: null,
    },
    {
      name: 'events: undated dropped, actions lower-cased, bad dates dropped',
      extra: {
        events: [
          { eventAction: 'Registration' },
          { eventAction: 'LAST CHANGED', eventDate: '2020-02-03T04:05:06+01:00' },
          { eventAction: 'expiration', eventDate: '2020-02-30T00:00:00Z' },
          { eventAction: 'transfer', eventDate: 'yesterday' },
          { eventDate: '2020-01-01T00:00:00Z' },
          'not an event',
        ],
      },
      field: 'events',
      want: [{ action: 'last changed', date: '2020-02-03T04:05:06+01:00' }],
    },
    { name: 'events not an array → []', extra: { events: { a: 1 } }, field: 'events', want: [] },
    {
      name: 'reversed start/end → no range, no cidrs',
      extra: { startAddress: '23.0.0.255', endAddress: '23.0.0.0' },
      field: 'cidrs',
      want: [],
    },
    {
      name: 'start/end of different families → null',
      extra: { startAddress: '23.0.0.0', endAddress: '2600::' },
      field: 'startAddress',
      want: null,
    },
    {
      name: 'unparsable start/end fall back to cidr0_cidrs',
      extra: {
        startAddress: 'banana',
        cidr0_cidrs: [
          { v4prefix: '23.0.0.0', length: 25 },
          { v4prefix: '23.0.0.128', length: 25 },
        ],
      },
      field: 'endAddress',
      want: '23.0.0.255',
    },
    {
      name: 'hostile cidr0 entries are skipped',
      extra: {
        cidr0_cidrs: [
          { v4prefix: '23.0.0.0', length: 99 },
          { v4prefix: 7, length: 8 },
          null,
          { v6prefix: 'x', length: 1.5 },
        ],
      },
      field: 'cidrs',
      want: ['23.0.0.0/24'],
    },
    {
      name: 'a range that is not one prefix becomes several cidrs',
      extra: { startAddress: '23.0.0.0', endAddress: '23.0.2.255' },
      field: 'cidrs',
      want: ['23.0.0.0/23', '23.0.2.0/24'],
    },
  ];
  for (const { name, extra, field, want } of table) {
    void test(name, () => {
      const got = mapRdapNetwork(network(extra)) as unknown as Record<string, unknown>;
      assert.deepEqual(got[field], want);
    });
  }
});

void describe('answers that are not an ip network', () => {
  const table: { name: string; json: unknown; code: string }[] = [
    { name: 'null → UPSTREAM_ERROR', json: null, code: 'UPSTREAM_ERROR' },
    { name: 'array → UPSTREAM_ERROR', json: [1, 2], code: 'UPSTREAM_ERROR' },
    { name: 'string → UPSTREAM_ERROR', json: 'hello', code: 'UPSTREAM_ERROR' },
    { name: 'empty object → UPSTREAM_ERROR', json: {}, code: 'UPSTREAM_ERROR' },
    {
      name: 'an entity object → UPSTREAM_ERROR',
      json: { objectClassName: 'entity', handle: 'X' },
      code: 'UPSTREAM_ERROR',
    },
    {
      name: 'error object 404 sent with 200 → NOT_FOUND',
      json: { errorCode: 404 },
      code: 'NOT_FOUND',
    },
    { name: 'error object 500 → UPSTREAM_ERROR', json: { errorCode: 500 }, code: 'UPSTREAM_ERROR' },
  ];
  for (const { name, json, code } of table) {
    void test(name, () => {
      assert.throws(
        () => mapRdapNetwork(json),
        (error: unknown) => error instanceof AppError && error.code === code,
      );
    });
  }

  void test('deeply nested or huge entity lists do not blow the stack', () => {
    let entity: Record<string, unknown> = { handle: 'LEAF', roles: ['registrant'] };
    for (let i = 0; i < 10_000; i++) entity = { handle: `E${i}`, entities: [entity] };
    const wide = Array.from({ length: 5000 }, (_, i) => ({ handle: `W${i}`, roles: ['abuse'] }));
    const got = mapRdapNetwork(network({ entities: [entity, ...wide] }));
    assert.equal(got.registrant, null);
  });
});
