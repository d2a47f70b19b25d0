import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHeapscopeServer } from '../../../../electron/cli/mcp/server.js';
import { SnapshotStore } from '../../../../electron/cli/mcp/snapshot-store.js';
import { LINK_BYTES, writeChainGcdump } from '../../../helpers/chain-heap.js';
import type { OpenJson, ToolErrorJson } from '../../../helpers/mcp-answers.js';
import { generateGcdump } from '../../../tools/gen-gcdump.js';

/**
 * `heapscope mcp` while a long open runs: the message loop keeps answering (pings, tools/list,
 * other snapshots' tools), and a cancelled request (MCP `notifications/cancelled`) stops its work
 * and leaves nothing open. Checked by order of answers, never by timing: the big heap's open is
 * caught in its dominator phase (a progress notification) and the other requests are sent then.
 */
const dir = mkdtempSync(join(tmpdir(), 'heapscope-mcp-conc-'));
const BIG = join(dir, 'big.gcdump');
const CHAIN = join(dir, 'chain.gcdump');
const BIG_OBJECTS = 1_000_000;

beforeAll(() => {
  generateGcdump({ objects: BIG_OBJECTS, out: BIG, seed: 7 });
  writeChainGcdump(CHAIN, { chain: 100 });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let client: Client | null = null;
let store: SnapshotStore | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
  await store?.closeAll();
  store = null;
});

async function connect(maxOpen = 4): Promise<Client> {
  store = new SnapshotStore(maxOpen, { write() {} });
  const server = createHeapscopeServer(store, 'test');
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  client = new Client({ name: 'unit', version: '1' });
  await client.connect(b);
  return client;
}

async function call<T = ToolErrorJson>(c: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; json: T }> {
  const r = (await c.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] };
  return { isError: r.isError === true, json: JSON.parse(r.content[0].text) as T };
}

/** A promise that resolves at the first progress notification of the dominator phase (synchronous analysis work). */
function dominatorPhase(): { seen: Promise<void>; onprogress: (p: Progress) => void } {
  let hit!: () => void;
  const seen = new Promise<void>((resolve) => (hit = resolve));
  return { seen, onprogress: (p) => (p.message?.startsWith('dominators') ? hit() : undefined) };
}

describe('heapscope mcp while a long open runs', () => {
  it('answers ping, tools/list and a tool on another snapshot before the open finishes', async () => {
    const c = await connect();
    const small = (await call<OpenJson>(c, 'open_snapshot', { path: CHAIN })).json.snapshot;
    const order: string[] = [];
    const phase = dominatorPhase();
    const open = c.callTool({ name: 'open_snapshot', arguments: { path: BIG } }, undefined, { onprogress: phase.onprogress, timeout: 300_000 }).then((r) => {
      order.push('open');
      return r as { isError?: boolean; content: { text: string }[] };
    });
    await phase.seen;
    await c.ping().then(() => order.push('ping'));
    await c.listTools().then(() => order.push('tools/list'));
    const dom = await call<{ parent: { retainedSize: number } }>(c, 'dominators', { snapshot: small });
    order.push('dominators');
    expect(dom.json.parent.retainedSize).toBe(100 * LINK_BYTES);
    const opened = await open;
    expect(order).toEqual(['ping', 'tools/list', 'dominators', 'open']);
    const big = JSON.parse(opened.content[0].text) as OpenJson;
    expect([opened.isError ?? false, big.objectCount, big.openSnapshots]).toEqual([false, BIG_OBJECTS, [small, big.snapshot]]);
  }, 300_000);

  it('a cancelled open stops, frees its slot and leaves no snapshot behind; the next request is answered', async () => {
    const c = await connect(1);
    const phase = dominatorPhase();
    const abort = new AbortController();
    const open = c.callTool({ name: 'open_snapshot', arguments: { path: BIG } }, undefined, { onprogress: phase.onprogress, signal: abort.signal, timeout: 300_000 });
    await phase.seen;
    abort.abort('changed my mind');
    await expect(open).rejects.toThrow('changed my mind');
    // the one slot (--max-open 1) is free again at once: the cancelled load no longer counts
    await c.ping();
    const next = await call<OpenJson>(c, 'open_snapshot', { path: CHAIN });
    expect([next.isError, next.json.openSnapshots]).toEqual([false, [next.json.snapshot]]);
    // its worker is gone (the heap it read went with it); only the chain's remains
    await expect.poll(() => store!.workerCount(), { timeout: 60_000 }).toBe(1);
  }, 300_000);
});
