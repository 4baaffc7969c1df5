// Shared by the MCP tests: the loopback upstream servers (DNS, RDAP, whois)
// with the zone of the network-route tests, the environment that points a
// service at them, a listening service with a small fetch helper, and the
// checks every transport must pass alike (toolConformance).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.js';
import { startRdapServer, type RdapServer } from '../helpers/rdap-server.js';
import { startService } from '../helpers/service.js';
import { startWhoisServer, type WhoisServer } from '../helpers/whois-server.js';
import { toolSchemaFindings } from '../helpers/schema-portability.js';

export interface Upstreams {
  dns: DnsTestServer;
  rdap: RdapServer;
  whois: WhoisServer;
  /** the variables that point a service at these servers */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startUpstreams(): Promise<Upstreams> {
  const dns = await startDnsServer({
    'example.test': {
      records: [
        { type: 'A', data: '192.0.2.10', ttl: 120 },
        { type: 'MX', data: { preference: 10, exchange: 'mail.example.test' }, ttl: 600 },
        { type: 'TXT', data: ['v=spf1 ', '-all'], ttl: 300 },
      ],
    },
    'silent.example.test': { behaviour: 'drop' },
    '10.2.0.192.in-addr.arpa': {
      records: [
        { type: 'PTR', data: 'host.example.test', ttl: 300 },
        { type: 'PTR', data: 'alias.example.test', ttl: 300 },
      ],
    },
    // host.example.test points back at 192.0.2.10 (forward-confirmed); alias.example.test does not
    'host.example.test': { records: [{ type: 'A', data: '192.0.2.10', ttl: 300 }] },
    '2.0.0.127.bl.test': {
      records: [
        { type: 'A', data: '127.0.0.2', ttl: 60 },
        { type: 'TXT', data: ['listed for testing'], ttl: 60 },
      ],
    },
  });
  const rdap = await startRdapServer();
  const whois = await startWhoisServer();
  return {
    dns,
    rdap,
    whois,
    env: {
      // loopback upstreams answer in a millisecond or two; these bounds hold
      // 10x and more of that on a loaded machine (an RDAP bound of 500 ms ran
      // out there, and the tool answered from whois where REST had RDAP's).
      // The silent DNS name waits out its bound, three tries: kept short
      DNS_SERVERS: `127.0.0.1:${dns.port}`,
      DNS_TIMEOUT_MS: '1000',
      DNSBL_ZONES: 'bl.test',
      RDAP_BASE_URL: rdap.url,
      RDAP_TIMEOUT_MS: '5000',
      WHOIS_SERVER: `127.0.0.1:${whois.port}`,
      WHOIS_TIMEOUT_MS: '5000',
    },
    close: async () => {
      await Promise.all([dns.close(), rdap.close(), whois.close()]);
    },
  };
}

export interface Running {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  close(): Promise<void>;
}

/** The service on a loopback port, through the shared test helper (data loaded once). */
export async function serve(env: Record<string, string>): Promise<Running> {
  const service = await startService({ env: { RATE_LIMIT_MAX: '100000', ...env } });
  return { url: service.baseUrl, close: () => service.close() };
}

/** The REST answer of a GET: `data` on success, `error` otherwise. */
export async function rest(
  base: string,
  path: string,
): Promise<{
  status: number;
  data?: Record<string, unknown>;
  error?: { code: string; message: string };
}> {
  const res = await fetch(`${base}${path}`);
  const body = (await res.json()) as {
    data?: Record<string, unknown>;
    error?: { code: string; message: string };
  };
  return { status: res.status, ...body };
}

/** Each tool with an input, and the REST path that answers the same question. */
export const TOOL_CASES: {
  name: string;
  args: Record<string, unknown>;
  path: string;
}[] = [
  { name: 'geoip_lookup', args: { ip: '8.8.8.8' }, path: '/ip/8.8.8.8' },
  { name: 'vpn_detect', args: { ip: '8.8.8.8' }, path: '/ip/8.8.8.8/vpn' },
  { name: 'whois_lookup', args: { ip: '23.0.2.10' }, path: '/whois/23.0.2.10' },
  {
    name: 'dns_lookup',
    args: { domain: 'example.test', type: 'MX' },
    path: '/dns/example.test?type=MX',
  },
  { name: 'dns_lookup', args: { domain: 'example.test' }, path: '/dns/example.test' },
  { name: 'reverse_dns', args: { ip: '192.0.2.10' }, path: '/dns/192.0.2.10/reverse' },
  { name: 'blacklist_check', args: { ip: '127.0.0.2' }, path: '/blacklist/127.0.0.2' },
  { name: 'cidr_calculate', args: { range: '10.1.2.3/8' }, path: '/cidr?range=10.1.2.3/8' },
  // both come from 127.0.0.1: the MCP caller is the REST caller
  { name: 'my_ip', args: {}, path: '/ip' },
  { name: 'asn_lookup', args: { asn: 'AS14061' }, path: '/asn/AS14061' },
];

/** Failing inputs, and the REST path that fails the same way (same code, same message). */
export const ERROR_CASES: {
  name: string;
  args: Record<string, unknown>;
  path: string;
  code: string;
}[] = [
  { name: 'geoip_lookup', args: { ip: '1.2.3' }, path: '/ip/1.2.3', code: 'INVALID_IP' },
  { name: 'vpn_detect', args: { ip: '010.1.1.1' }, path: '/ip/010.1.1.1/vpn', code: 'INVALID_IP' },
  {
    name: 'dns_lookup',
    args: { domain: 'nowhere.example.test' },
    path: '/dns/nowhere.example.test',
    code: 'NXDOMAIN',
  },
  {
    name: 'dns_lookup',
    args: { domain: 'silent.example.test' },
    path: '/dns/silent.example.test',
    code: 'UPSTREAM_TIMEOUT',
  },
  {
    name: 'dns_lookup',
    args: { domain: 'bad..test' },
    path: '/dns/bad..test',
    code: 'INVALID_DOMAIN',
  },
  {
    name: 'blacklist_check',
    args: { ip: '2001:db8::1' },
    path: '/blacklist/2001:db8::1',
    code: 'IPV4_ONLY',
  },
  { name: 'whois_lookup', args: { ip: '10.1.2.3' }, path: '/whois/10.1.2.3', code: 'NOT_FOUND' },
  {
    name: 'reverse_dns',
    args: { ip: 'fe80::1%eth0' },
    path: '/dns/fe80::1%25eth0/reverse',
    code: 'INVALID_IP',
  },
  {
    name: 'cidr_calculate',
    args: { range: '10.0.0.0/33' },
    path: '/cidr?range=10.0.0.0/33',
    code: 'INVALID_RANGE',
  },
  {
    name: 'asn_lookup',
    args: { asn: 'AS4200000000' },
    path: '/asn/AS4200000000',
    code: 'NOT_FOUND',
  },
  { name: 'asn_lookup', args: { asn: 'ASX' }, path: '/asn/ASX', code: 'BAD_REQUEST' },
  { name: 'ip_ranges', args: {}, path: '/ranges', code: 'BAD_REQUEST' },
  { name: 'ip_ranges', args: { country: 'RUS' }, path: '/ranges?country=RUS', code: 'BAD_REQUEST' },
];

export const TOOL_NAMES = [
  'geoip_lookup',
  'geoip_batch',
  'vpn_detect',
  'whois_lookup',
  'dns_lookup',
  'reverse_dns',
  'blacklist_check',
  'cidr_calculate',
  'my_ip',
  'asn_lookup',
  'ip_ranges',
];

export const NETWORK_TOOLS = new Set([
  'whois_lookup',
  'dns_lookup',
  'reverse_dns',
  'blacklist_check',
]);

/** tools/list: every tool, described, with an object output schema and the right hints. */
async function assertToolList(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
  for (const tool of tools) {
    assert.ok((tool.description ?? '').length > 80, `${tool.name} is described for a model`);
    assert.equal(tool.inputSchema.type, 'object');
    for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) {
      const description = (property as { description?: unknown }).description;
      assert.equal(typeof description, 'string', `${tool.name}.${name} is described`);
    }
    assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has an object outputSchema`);
    assert.equal(tool.annotations?.readOnlyHint, true);
    assert.equal(tool.annotations?.openWorldHint, NETWORK_TOOLS.has(tool.name), tool.name);
  }
  const dns = tools.find((t) => t.name === 'dns_lookup');
  const type = dns?.inputSchema.properties?.['type'] as { enum?: unknown } | undefined;
  assert.deepEqual(type?.enum, ['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME']);
}

/** Every tool answers what REST answers for the same input, as structured content and text. */
async function assertToolsMatchRest(client: Client, restBase: string): Promise<void> {
  for (const { name, args, path } of TOOL_CASES) {
    const [result, expected] = await Promise.all([
      client.callTool({ name, arguments: args }),
      rest(restBase, path),
    ]);
    assert.equal(expected.status, 200, `${path} succeeds`);
    assert.notEqual(result.isError, true, `${name} succeeds`);
    assert.deepEqual(result.structuredContent, expected.data, `${name} ${JSON.stringify(args)}`);
    const content = result.content as { type: string; text: string }[];
    assert.equal(content[0]?.type, 'text');
    assert.ok((content[0]?.text ?? '').length > 0);
    assert.deepEqual(JSON.parse(content[1]?.text ?? 'null'), expected.data);
  }
}

/** Failures are tool results with isError and the REST code and message. */
async function assertToolErrorsMatchRest(client: Client, restBase: string): Promise<void> {
  await Promise.all(
    ERROR_CASES.map(async ({ name, args, path, code }) => {
      const [result, expected] = await Promise.all([
        client.callTool({ name, arguments: args }),
        rest(restBase, path),
      ]);
      assert.equal(expected.error?.code, code, path);
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} fails`);
      assert.equal(result.structuredContent, undefined);
      const content = result.content as { type: string; text: string }[];
      assert.equal(content[0]?.text, `${code}: ${expected.error?.message ?? ''}`);
      assert.deepEqual(result._meta?.['ipintel/error'], expected.error);
    }),
  );
}

/**
 * The tests every MCP transport passes alike, declared in the caller's
 * describe: the tool list, portable schemas, and each tool's answer and
 * failure compared with REST's. `session` is read when the tests run (after
 * the caller's before hook connected the client).
 */
export function toolConformance(session: () => { client: Client; restBase: string }): void {
  it('lists the eleven tools with descriptions, schemas and annotations', async () => {
    await assertToolList(session().client);
  });

  it('every tool schema is portable (the MCP Inspector --strict rules find nothing)', async () => {
    const { tools } = await session().client.listTools();
    assert.ok(tools.length >= 8, `${tools.length} tools`);
    assert.deepEqual(toolSchemaFindings(tools), []);
  });

  it('every tool answers what the REST API answers', async () => {
    const { client, restBase } = session();
    await assertToolsMatchRest(client, restBase);
  });

  it('tool failures are isError results with the REST code and message', async () => {
    const { client, restBase } = session();
    await assertToolErrorsMatchRest(client, restBase);
  });
}
