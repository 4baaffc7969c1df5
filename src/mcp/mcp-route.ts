// POST /mcp: the MCP Streamable HTTP endpoint, stateless. The SDK's Web
// Standard transport and McpServer carry the protocol; this file owns only the
// HTTP glue around them:
// - the pipeline has already counted the request against the rate limit and
//   refused non-JSON (415) and oversized (413) bodies with the service envelope;
// - the body is parsed here, so that unparsable JSON is -32700 and JSON that is
//   not a JSON-RPC message is -32600 (the SDK answers -32700 for both);
// - the transport answers 406 unless Accept lists both application/json and
//   text/event-stream, which plain curl (`*/*` or nothing) does not: it gets a
//   Request of our own making with that Accept, and we pick the answer format
//   from the client's real Accept (JSON unless it accepts only an event stream);
// - a new transport and McpServer per request, as the SDK requires in stateless
//   mode; GET and DELETE /mcp are left to the router (405, Allow: POST), since
//   there is no session to resume or end and no server-initiated stream;
// - the SDK (and ./server.js, which builds on it) is loaded by the first POST,
//   not at start-up: the imports below are types only, erased at compile time.
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { defineHandler, type RawBody, type RequestContext } from '../http/route.js';
import type { connectMcp, createMcpServer } from './server.js';
import type { CallRoute } from './tools.js';

export const MCP_PATH = '/mcp';

/** What the SDK transport insists on seeing before it handles a POST. */
const SDK_ACCEPT = 'application/json, text/event-stream';

/** Request headers the transport reads; the rest of the client's headers mean nothing to it. */
const FORWARDED_HEADERS = ['content-type', 'mcp-protocol-version', 'mcp-session-id'] as const;

const JSON_TYPE = 'application/json';

export interface McpRouteDeps {
  version: string;
  log: Logger;
  /** App.call, late-bound: the route table is built before the app that runs it */
  call: CallRoute;
}

const jsonRpcResponseSchema = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number(), z.null()]),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z
      .object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() })
      .optional(),
  })
  .meta({
    description:
      'A JSON-RPC 2.0 response (an array of them for a batch); no body (202) when the request held only notifications.',
  });

/** What a POST /mcp needs from the SDK. */
interface McpSdk {
  Transport: typeof WebStandardStreamableHTTPServerTransport;
  messageSchema: typeof JSONRPCMessageSchema;
  createMcpServer: typeof createMcpServer;
  connectMcp: typeof connectMcp;
}

let sdk: Promise<McpSdk> | undefined;

/**
 * The SDK, imported once, on first use: it takes ~0.3 s to load, which every
 * start-up would pay for a route many deployments never see. Concurrent first
 * requests share the one import; a failed import is tried again next time.
 */
function loadSdk(): Promise<McpSdk> {
  sdk ??= Promise.all([
    import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('./server.js'),
  ]).then(
    ([transport, types, server]) => ({
      Transport: transport.WebStandardStreamableHTTPServerTransport,
      messageSchema: types.JSONRPCMessageSchema,
      createMcpServer: server.createMcpServer,
      connectMcp: server.connectMcp,
    }),
    (error: unknown) => {
      sdk = undefined;
      throw error;
    },
  );
  return sdk;
}

export function mcpHandlers(deps: McpRouteDeps) {
  return {
    endpoint: defineHandler({
      summary: 'Model Context Protocol endpoint (Streamable HTTP, stateless)',
      description:
        'JSON-RPC 2.0 over HTTP for MCP clients: initialize, ping, tools/list and tools/call with one tool per lookup (geoip_lookup, vpn_detect, whois_lookup, dns_lookup, reverse_dns, blacklist_check, cidr_calculate, my_ip). No session and no initialize needed: a lone tools/list or tools/call works. Answers application/json unless the client accepts only text/event-stream. Protocol errors are JSON-RPC errors (-32700 and -32600 with HTTP 400, others with 200); tool failures are results with isError and the REST error code. GET and DELETE answer 405.',
      tags: ['MCP'],
      response: jsonRpcResponseSchema,
      errors: ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
      raw: true,
      body: true,
      handle: ({ ctx }) => handleMcp(ctx, deps),
    }),
  };
}

async function handleMcp(ctx: RequestContext, deps: McpRouteDeps): Promise<RawBody> {
  let message: unknown;
  try {
    message = JSON.parse(ctx.bodyText ?? '');
  } catch {
    return rpcError(-32700, 'Parse error: the body is not valid JSON.', null);
  }
  const mcp = await loadSdk();
  const invalid = invalidRequest(message, mcp.messageSchema);
  if (invalid !== null) return rpcError(-32600, `Invalid Request: ${invalid}`, requestId(message));

  // no sessionIdGenerator: stateless, no Mcp-Session-Id issued or checked
  const transport = new mcp.Transport({
    enableJsonResponse: !wantsEventStream(ctx.headers.accept),
  });
  const server = mcp.createMcpServer(deps.version, { call: deps.call, ctx, log: deps.log });
  try {
    await mcp.connectMcp(server, transport, deps.log);
    const headers = new Headers({ accept: SDK_ACCEPT });
    for (const name of FORWARDED_HEADERS) {
      const value = ctx.headers[name];
      if (typeof value === 'string') headers.set(name, value);
    }
    // the URL is only reported to handlers (requestInfo), never fetched
    const request = new Request(`http://localhost${MCP_PATH}`, { method: 'POST', headers });
    const response = await transport.handleRequest(request, { parsedBody: message });
    // JSON mode resolves once every response is ready, and in event-stream mode
    // the transport ends the stream after the last one: either way the whole
    // answer is read here, before the server is closed
    const text = response.body === null ? null : await response.text();
    return {
      body: text === '' ? null : text,
      contentType: response.headers.get('content-type') ?? JSON_TYPE,
      status: response.status,
    };
  } finally {
    await server.close();
  }
}

/**
 * Why the parsed body is not a JSON-RPC message (or a batch of them), as the
 * SDK itself defines one; null when it is.
 */
function invalidRequest(
  message: unknown,
  messageSchema: typeof JSONRPCMessageSchema,
): string | null {
  if (Array.isArray(message)) {
    if (message.length === 0) return 'an empty batch.';
    const bad = message.findIndex((item) => !messageSchema.safeParse(item).success);
    return bad === -1 ? null : `batch element ${bad} is not a JSON-RPC 2.0 message.`;
  }
  if (typeof message !== 'object' || message === null) {
    return 'the body must be a JSON-RPC 2.0 object (or an array of them).';
  }
  return messageSchema.safeParse(message).success
    ? null
    : 'not a JSON-RPC 2.0 message: it needs "jsonrpc": "2.0", a string "method" and, for a request, a string or integer "id" (no other members).';
}

/** The id of an invalid request when it can be read (JSON-RPC 2.0 §5), else null. */
function requestId(message: unknown): string | number | null {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const id = (message as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

function rpcError(code: number, message: string, id: string | number | null): RawBody {
  return {
    body: JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }),
    contentType: JSON_TYPE,
    status: 400,
  };
}

/**
 * Plain JSON unless the client asked for an event stream and cannot take JSON
 * (the SDK's own clients list both, and get JSON).
 */
function wantsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const types = accept.split(',').map((part) => part.split(';')[0]?.trim().toLowerCase() ?? '');
  const json = types.some((t) => t === JSON_TYPE || t === 'application/*' || t === '*/*');
  return types.includes('text/event-stream') && !json;
}
