// The MCP tools over stdio, for desktop clients (Claude Desktop, Cursor) that
// spawn the server as a child process. The lookups run in-process through the
// app's call (no listening socket); stdout carries the protocol alone, so
// whoever builds the app must send its logs elsewhere (scripts/mcp-stdio.ts
// logs to stderr).
import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from 'pino';
import type { RequestContext } from '../http/route.js';
import { parseIp, type Ip } from '../net/ip.js';
import { connectMcp, createMcpServer } from './server.js';
import type { CallRoute } from './tools.js';

export interface StdioOptions {
  version: string;
  log: Logger;
  /** App.call of an app built for this process */
  call: CallRoute;
  stdin?: Readable;
  stdout?: Writable;
}

/** The client of a stdio server is the local machine: `my_ip` reports the loopback address. */
const LOOPBACK = parseIp('127.0.0.1') as Ip;

/** Serves until the client closes stdin; returns the server so the caller can close it. */
export async function serveStdio(options: StdioOptions): Promise<McpServer> {
  const ctx: RequestContext = { clientIp: LOOPBACK, requestId: 'mcp-stdio', headers: {} };
  const server = createMcpServer(options.version, {
    call: options.call,
    context: () => ctx,
    log: options.log,
  });
  await connectMcp(server, new StdioServerTransport(options.stdin, options.stdout), options.log);
  return server;
}
