// One McpServer for every POST /mcp of the process, instead of one per
// request: building the server (nine tools, their zod schemas) and its SDK
// transport cost milliseconds a call, which the lookups behind the tools do
// not. The server stays the SDK's — initialize and version negotiation,
// tools/list with its JSON Schemas, argument and result validation, JSON-RPC
// error codes — and this transport multiplexes the HTTP requests onto it.
//
// JSON-RPC ids are only unique per client, so each request reaches the
// server under an id of this transport's own and its response goes back to
// its caller with the client's id restored. Stateless MCP has nothing else
// that belongs to one client: notifications (initialized, cancelled, progress)
// refer to a session or to a request of the same connection, which no HTTP
// request here has, so they are acknowledged and not forwarded (a `cancelled`
// naming a client's id must not cancel another client's request).
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  JSONRPCMessage,
  JSONRPCRequest,
  MessageExtraInfo,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestContext } from '../http/route.js';

interface Waiting {
  resolve: (response: JSONRPCMessage) => void;
  /** the id the client sent */
  id: RequestId;
  ctx: RequestContext;
}

export class MuxTransport implements Transport {
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();

  async start(): Promise<void> {}

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }

  /** The server's response to one of the requests in flight; anything else has no recipient. */
  send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && ('result' in message || 'error' in message)) {
      const id = message.id;
      const waiting = typeof id === 'number' ? this.waiting.get(id) : undefined;
      if (waiting !== undefined) {
        this.waiting.delete(id as number);
        waiting.resolve({ ...message, id: waiting.id });
      }
    }
    return Promise.resolve();
  }

  /** Hands a client's request to the server; resolves with its response, the client's id restored. */
  request(message: JSONRPCRequest, ctx: RequestContext): Promise<JSONRPCMessage> {
    return new Promise((resolve) => {
      const id = this.nextId++;
      this.waiting.set(id, { resolve, id: message.id, ctx });
      this.onmessage?.({ ...message, id });
    });
  }

  /** The HTTP request that carries the server-side request `id` (for `my_ip`). */
  context(id: RequestId): RequestContext | undefined {
    return typeof id === 'number' ? this.waiting.get(id)?.ctx : undefined;
  }
}
