import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import type { Writer } from '../output.js';
import { registerRetentionTools } from './retention-tools.js';
import { registerSnapshotTools } from './snapshot-tools.js';
import { SnapshotStore } from './snapshot-store.js';
import { registerSuspectsTool } from './suspects-tool.js';
import { registerTableTools } from './table-tools.js';

/**
 * `heapscope mcp`: a Model Context Protocol server over stdio (the official TypeScript SDK).
 *
 * Only the SDK's McpServer and stdio transport are imported, never its HTTP transports (which
 * pull in express and hono): the CLI bundle stays small. This module is loaded by a dynamic
 * import from commands/mcp.ts, so the other commands never load the SDK or zod.
 *
 * stdout carries protocol messages and nothing else; anything for a human goes to stderr.
 * This thread only routes: every snapshot is read, analysed and queried in a worker thread of its
 * own (snapshot-worker.ts), so requests are answered while a big file opens.
 */
export interface McpServeOptions {
  maxOpen: number;
  stdin: Readable;
  stdout: Writable;
  stderr: Writer;
  version: string;
}

export function createHeapscopeServer(store: SnapshotStore, version: string): McpServer {
  const server = new McpServer(
    { name: 'heapscope', version },
    {
      instructions:
        'Heapscope analyzes .NET heap snapshots with exact dominator trees. Start with open_snapshot (an absolute path), then summary, ' +
        'top_types (sort retained), inspections, suspects (the leak-suspects report) and dominators; paths_to_roots explains why an object or type is alive; diff compares two ' +
        'open snapshots. Sizes are bytes; retained size is exact (what freeing the object would release). Close snapshots you no longer need.',
    },
  );
  registerSnapshotTools(server, store);
  registerTableTools(server, store);
  registerRetentionTools(server, store);
  registerSuspectsTool(server, store);
  return server;
}

/** Serves until the client closes stdin (or the transport fails); resolves then, with every snapshot dropped and its thread ended. */
export async function serveMcp(opts: McpServeOptions): Promise<void> {
  const store = new SnapshotStore(opts.maxOpen, opts.stderr);
  const server = createHeapscopeServer(store, opts.version);
  const transport = new StdioServerTransport(opts.stdin, opts.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  // The SDK's stdio transport does not watch for the end of stdin; without this the process
  // would linger with an unsettled promise after its client went away.
  const end = () => void server.close();
  opts.stdin.once('end', end);
  opts.stdin.once('close', end);
  // A stray console.log (ours or a library's) would corrupt the protocol stream: send it to stderr.
  if (opts.stdout === process.stdout) console.log = console.info = console.debug = console.error;
  await server.connect(transport);
  opts.stderr.write(`heapscope mcp: ready (at most ${opts.maxOpen} snapshots open)\n`);
  await closed;
  await store.closeAll(); // every snapshot's worker thread ends with the session
  opts.stdin.off('end', end);
  opts.stdin.off('close', end);
}
