// One McpServer with every tool, over whatever transport the caller connects:
// the SDK carries the protocol (initialize and version negotiation, ping,
// tools/list with JSON Schema, argument validation, JSON-RPC error codes).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  isJSONRPCRequest,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { portableToolList } from './portable-schema.js';
import { TOOLS, type ToolDeps } from './tools.js';

export const SERVER_NAME = 'ipintel';

const INSTRUCTIONS =
  'ipintel answers questions about IP addresses and domain names: where an address is (geoip_lookup; many at once with geoip_batch), whether it is a VPN, proxy, Tor exit or hosting network (vpn_detect), who it is registered to (whois_lookup), its host names (reverse_dns), whether it is on spam blacklists (blacklist_check), DNS records of a domain (dns_lookup), subnet arithmetic (cidr_calculate) and the client’s own address (my_ip). Every tool is read-only. A failed call returns isError with "CODE: message" (e.g. INVALID_IP, NXDOMAIN, UPSTREAM_TIMEOUT); fix the input or retry later as the message says.';

export function createMcpServer(version: string, deps: ToolDeps): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, title: 'ipintel IP intelligence', version },
    { instructions: INSTRUCTIONS },
  );
  for (const tool of TOOLS) tool.register(server, deps);
  return server;
}

/** The requests this server handles, with the SDK's own schema of each. */
const REQUEST_SCHEMAS = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
} as const;

const TOOL_NAMES = new Set(TOOLS.map((tool) => tool.name));

/**
 * Connects the server, with two corrections of the SDK's answers. The tool
 * schemas of tools/list are made portable (./portable-schema.ts). And a request
 * whose params do not fit its method's schema gets -32602 Invalid params
 * (JSON-RPC 2.0, docs/mcp.md) where SDK 1.32 answers -32603 Internal error
 * with the zod issue dump, and an unknown tool name -32602 as the MCP spec
 * says (the SDK answers a tool result with isError). The refusal goes out
 * through the transport like any response, so a batch still gets one answer
 * per request.
 */
export async function connectMcp(
  server: McpServer,
  transport: Transport,
  log: Logger,
): Promise<void> {
  await server.connect(transport);
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(portableToolList(message), options);
  const forward = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const refusal = invalidParams(message);
    if (refusal === null) {
      forward?.(message, extra);
      return;
    }
    transport.send(refusal).catch((error: unknown) => {
      log.warn({ err: error }, 'MCP error response could not be sent');
    });
  };
}

function invalidParams(message: JSONRPCMessage): JSONRPCErrorResponse | null {
  if (!isJSONRPCRequest(message) || !Object.hasOwn(REQUEST_SCHEMAS, message.method)) return null;
  const schema = REQUEST_SCHEMAS[message.method as keyof typeof REQUEST_SCHEMAS];
  const parsed = schema.safeParse(message);
  let problem: string | null = null;
  if (!parsed.success) {
    problem = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(request)'}: ${issue.message}`)
      .join('; ');
  } else if (message.method === 'tools/call') {
    const name = (message.params as { name: string }).name;
    if (!TOOL_NAMES.has(name)) {
      problem = `unknown tool ${JSON.stringify(name.slice(0, 64))}; tools/list names the tools (${[...TOOL_NAMES].join(', ')}).`;
    }
  }
  return problem === null
    ? null
    : {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` },
      };
}
