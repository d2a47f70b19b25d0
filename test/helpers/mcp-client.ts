import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createHeapscopeServer } from '../../electron/cli/mcp/server.js';
import type { SnapshotStore } from '../../electron/cli/mcp/snapshot-store.js';
import type { ToolErrorJson } from './mcp-answers.js';

/** `heapscope mcp`'s server over `store`, and an SDK client connected to it in memory (no stdio). */
export async function connectInMemory(store: SnapshotStore): Promise<Client> {
  const server = createHeapscopeServer(store, 'test');
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(b);
  return client;
}

/** One tool call, its single text answer parsed as JSON. */
export async function callTool<T = ToolErrorJson>(c: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; json: T }> {
  const r = (await c.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
  return { isError: r.isError === true, json: JSON.parse(r.content[0].text) as T };
}
