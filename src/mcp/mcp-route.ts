// POST /mcp: the MCP Streamable HTTP endpoint, stateless. The SDK's McpServer
// carries the protocol (initialize and version negotiation, tools/list with
// JSON Schema, argument and result validation, JSON-RPC error codes); this
// file owns the HTTP glue around it, as the SDK's Streamable HTTP transport
// would do it for a stateless server with JSON responses:
// - the pipeline has already counted the request against the rate limit and
//   refused non-JSON (415) and oversized (413) bodies with the service envelope;
// - the body is parsed here, so that unparsable JSON is -32700 and JSON that is
//   not a JSON-RPC message is -32600 (the SDK answers -32700 for both);
// - the SDK transport's checks are kept: at most 100 messages in a batch, one
//   initialize alone, an MCP-Protocol-Version header it does not speak → 400;
//   but not its 406 for an Accept without text/event-stream, which plain curl
//   (`*/*` or nothing) does not send: the answer is JSON unless the client
//   accepts only an event stream;
// - ONE McpServer per app answers every request through ./mux-transport.ts,
//   not a new server and transport per request as the SDK's stateless example
//   does: building them cost more than the lookups (BENCHMARKS.md); GET and
//   DELETE /mcp are left to the router (405, Allow: POST), since there is no
//   session to resume or end and no server-initiated stream;
// - the SDK (and ./server.js, which builds on it) is loaded by the first POST,
//   not at start-up: the SDK imports below are types only.
import type { JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type * as SdkTypes from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { defineHandler, type RawBody, type RequestContext } from '../http/route.js';
import { MuxTransport } from './mux-transport.js';
import type { connectMcp, createMcpServer } from './server.js';
import type { CallRoute } from './tools.js';

const JSON_TYPE = 'application/json';

/** The SDK transport's bound on a batch (its MAX_BATCH_SIZE). */
const MAX_BATCH = 100;

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
  messageSchema: typeof JSONRPCMessageSchema;
  supportedVersions: readonly string[];
  isRequest: typeof SdkTypes.isJSONRPCRequest;
  isInitialize: typeof SdkTypes.isInitializeRequest;
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
  sdk ??= Promise.all([import('@modelcontextprotocol/sdk/types.js'), import('./server.js')]).then(
    ([types, server]) => ({
      messageSchema: types.JSONRPCMessageSchema,
      supportedVersions: types.SUPPORTED_PROTOCOL_VERSIONS,
      isRequest: types.isJSONRPCRequest,
      isInitialize: types.isInitializeRequest,
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
  // the app's one server, connected to the transport that multiplexes requests onto it
  let shared: Promise<MuxTransport> | undefined;
  const sharedServer = (mcp: McpSdk): Promise<MuxTransport> => {
    shared ??= (async () => {
      const transport = new MuxTransport();
      const server = mcp.createMcpServer(deps.version, {
        call: deps.call,
        log: deps.log,
        context: (id) => {
          const ctx = transport.context(id);
          if (ctx === undefined) throw new Error(`no request in flight with id ${String(id)}`);
          return ctx;
        },
      });
      await mcp.connectMcp(server, transport, deps.log);
      return transport;
    })().catch((error: unknown) => {
      shared = undefined;
      throw error;
    });
    return shared;
  };
  return {
    endpoint: defineHandler({
      summary: 'Model Context Protocol endpoint (Streamable HTTP, stateless)',
      description:
        'JSON-RPC 2.0 over HTTP for MCP clients: initialize, ping, tools/list and tools/call with one tool per lookup (geoip_lookup, geoip_batch, vpn_detect, whois_lookup, dns_lookup, reverse_dns, blacklist_check, cidr_calculate, my_ip). No session and no initialize needed: a lone tools/list or tools/call works. Answers application/json unless the client accepts only text/event-stream. Protocol errors are JSON-RPC errors (-32700 and -32600 with HTTP 400, others with 200); tool failures are results with isError and the REST error code. GET and DELETE answer 405.',
      tags: ['MCP'],
      response: jsonRpcResponseSchema,
      errors: ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
      raw: true,
      body: true,
      handle: ({ ctx }) => handleMcp(ctx, sharedServer),
    }),
  };
}

async function handleMcp(
  ctx: RequestContext,
  sharedServer: (mcp: McpSdk) => Promise<MuxTransport>,
): Promise<RawBody> {
  let message: unknown;
  try {
    message = JSON.parse(ctx.bodyText ?? '');
  } catch {
    return rpcError(-32700, 'Parse error: the body is not valid JSON.', null);
  }
  const mcp = await loadSdk();
  const invalid = invalidRequest(message, mcp.messageSchema);
  if (invalid !== null) return rpcError(-32600, `Invalid Request: ${invalid}`, requestId(message));
  const messages = (Array.isArray(message) ? message : [message]) as JSONRPCMessage[];
  const refusal = transportRefusal(messages, ctx, mcp);
  if (refusal !== null) return refusal;
  const requests = messages.filter(mcp.isRequest);
  // notifications and responses only: accepted, nothing to answer (see ./mux-transport.ts)
  if (requests.length === 0) return { body: null, contentType: JSON_TYPE, status: 202 };
  const transport = await sharedServer(mcp);
  const responses = await Promise.all(requests.map((request) => transport.request(request, ctx)));
  if (wantsEventStream(ctx.headers.accept)) {
    return {
      body: responses.map((r) => `event: message\ndata: ${JSON.stringify(r)}\n\n`).join(''),
      contentType: 'text/event-stream',
      status: 200,
    };
  }
  return {
    body: JSON.stringify(Array.isArray(message) ? responses : responses[0]),
    contentType: JSON_TYPE,
    status: 200,
  };
}

/** The SDK Streamable HTTP transport's own refusals of a valid message (400), or null. */
function transportRefusal(
  messages: readonly JSONRPCMessage[],
  ctx: RequestContext,
  mcp: McpSdk,
): RawBody | null {
  if (messages.length > MAX_BATCH) {
    return rpcError(-32600, `Invalid Request: a batch holds at most ${MAX_BATCH} messages.`, null);
  }
  if (messages.some(mcp.isInitialize)) {
    return messages.length > 1
      ? rpcError(-32600, 'Invalid Request: initialize must be sent alone, not in a batch.', null)
      : null;
  }
  const version = ctx.headers['mcp-protocol-version'];
  if (typeof version === 'string' && !mcp.supportedVersions.includes(version)) {
    return rpcError(
      -32000,
      `Bad Request: unsupported MCP-Protocol-Version ${JSON.stringify(version.slice(0, 40))} (supported: ${mcp.supportedVersions.join(', ')}).`,
      null,
    );
  }
  return null;
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
