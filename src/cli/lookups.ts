// The lookup subcommands of `ipintel`: each runs the very route handler of the
// HTTP API in-process (same schemas, same errors, same records) and renders
// its record as the MCP tool does, or as JSON. Each loads only what it needs:
// `cidr` and the network lookups never read the GeoIP tables.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { Expiring, type AnyHandler, type RequestContext } from '../http/route.js';
import { checkInput } from '../http/validate.js';

/** What a subcommand needs loaded before its handler exists. */
type Needs = 'geo' | 'vpn' | 'ranges' | 'network' | 'nothing';

export interface LookupCommand {
  name: string;
  /** the MCP tool whose text rendering the readable output uses */
  tool: string;
  needs: Needs;
  /** the handler's name in its group of route handlers */
  handler: string;
  /** the raw route input of one positional argument */
  raw(
    value: string,
    type: string | undefined,
  ): {
    params?: Record<string, string>;
    query?: Record<string, string>;
  };
  /** the tool's arguments, for its rendering */
  args(value: string, type: string | undefined): Record<string, unknown>;
}

const byIp = (name: string, tool: string, needs: Needs, handler: string): LookupCommand => ({
  name,
  tool,
  needs,
  handler,
  raw: (ip) => ({ params: { ip } }),
  args: (ip) => ({ ip }),
});

export const LOOKUP_COMMANDS: readonly LookupCommand[] = [
  byIp('ip', 'geoip_lookup', 'geo', 'address'),
  byIp('vpn', 'vpn_detect', 'vpn', 'detect'),
  byIp('whois', 'whois_lookup', 'network', 'whois'),
  byIp('reverse', 'reverse_dns', 'network', 'reverse'),
  byIp('blacklist', 'blacklist_check', 'network', 'blacklist'),
  {
    name: 'asn',
    tool: 'asn_lookup',
    needs: 'ranges',
    handler: 'asn',
    raw: (asn) => ({ params: { asn } }),
    args: (asn) => ({ asn }),
  },
  {
    name: 'dns',
    tool: 'dns_lookup',
    needs: 'network',
    handler: 'dns',
    raw: (domain, type) => ({ params: { domain }, query: type === undefined ? {} : { type } }),
    args: (domain, type) => ({ domain, type: (type ?? 'A').toUpperCase() }),
  },
  {
    name: 'cidr',
    tool: 'cidr_calculate',
    needs: 'nothing',
    handler: 'calculate',
    raw: (range) => ({ query: { range } }),
    args: (range) => ({ range }),
  },
];

/** The CLI is the local machine asking. */
const CLI_CONTEXT: RequestContext = {
  clientIp: { version: 4, text: '127.0.0.1', value: 0x7f000001 },
  requestId: 'cli',
  headers: {},
};

/** The handlers a subcommand needs, built from the configuration (modules loaded on demand). */
export async function handlersFor(
  needs: Needs,
  config: Readonly<Config>,
  log: Logger,
): Promise<Record<string, AnyHandler>> {
  const none = () => null;
  if (needs === 'nothing') return (await import('../routes/cidr-routes.js')).cidrHandlers();
  if (needs === 'network') {
    const [{ networkHandlers }, { networkLookups }] = await Promise.all([
      import('../routes/network-routes.js'),
      import('../composition.js'),
    ]);
    return networkHandlers(networkLookups(config));
  }
  const { loadGeo } = await import('./load.js');
  const { geoip, vpnJson, holder } = await loadGeo(config, log, needs !== 'geo');
  if (needs === 'ranges') {
    return (await import('../routes/range-routes.js')).rangeHandlers({
      sources: { geoip, vpn: vpnJson, feeds: () => holder!.current() },
      headers: () => ({}),
    });
  }
  if (needs === 'geo')
    return (await import('../routes/geoip-routes.js')).geoipHandlers(geoip, none);
  const { vpnHandlers } = await import('../routes/vpn-routes.js');
  return vpnHandlers(vpnJson!, none);
}

/** Runs a handler on raw input: its record (an Expiring answer unwrapped), or its AppError. */
export async function runHandler(
  handler: AnyHandler,
  raw: { params?: Record<string, string>; query?: Record<string, string> },
): Promise<unknown> {
  const input = checkInput(handler, raw, CLI_CONTEXT);
  const result: unknown = await (handler.record ? handler.record(input) : handler.handle(input));
  return result instanceof Expiring ? (result.data as unknown) : result;
}
