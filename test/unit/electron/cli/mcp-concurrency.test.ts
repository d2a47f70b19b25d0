import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotStore } from '../../../../electron/cli/mcp/snapshot-store.js';
import { LINK_BYTES, writeChainGcdump } from '../../../helpers/chain-heap.js';
import type { OpenJson } from '../../../helpers/mcp-answers.js';
import { generateGcdump } from '../../../tools/gen-gcdump.js';
import { DumpStreamWriter } from '../../../helpers/dump-stream-writer.js';
import { callTool, connectInMemory } from '../../../helpers/mcp-client.js';

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
const savedHelper = process.env.HEAPSCOPE_DUMP_READER;
afterAll(() => {
  if (savedHelper === undefined) delete process.env.HEAPSCOPE_DUMP_READER;
  else process.env.HEAPSCOPE_DUMP_READER = savedHelper;
  for (const pid of helperPids) if (alive(pid)) process.kill(pid, 'SIGKILL'); // only after a failure
  rmSync(dir, { recursive: true, force: true });
});

const helperPids: number[] = [];
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let client: Client | null = null;
let store: SnapshotStore | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
  await store?.closeAll();
  store = null;
});

/**
 * A cancelled or closed snapshot's thread is terminated once its call has wound down, or after a
 * grace period; here the grace is longer than any test, so a thread that ends did so because its
 * reader or analysis saw the cancellation (nothing was cut off mid-way: no helper process orphaned).
 */
const NO_GRACE_CUTOFF_MS = 600_000;

async function connect(maxOpen = 4): Promise<Client> {
  store = new SnapshotStore(maxOpen, { write() {} }, NO_GRACE_CUTOFF_MS);
  client = await connectInMemory(store);
  return client;
}

const call = callTool;

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

describe('heapscope mcp: cancelled and interrupted queries', () => {
  it('a query cancelled by the client leaves its snapshot usable: the next queries answer in full', async () => {
    const c = await connect();
    const big = (await call<OpenJson>(c, 'open_snapshot', { path: BIG })).json.snapshot;
    const abort = new AbortController();
    // the first paths_to_roots builds the path index (a BFS and the retainer index over every node and reference)
    const cancelled = c.callTool({ name: 'paths_to_roots', arguments: { snapshot: big, type: 'System.String' } }, undefined, { signal: abort.signal });
    abort.abort('enough');
    await expect(cancelled).rejects.toThrow('enough');
    const summary = await call<{ objectCount: number; snapshot: string }>(c, 'summary', { snapshot: big });
    expect([summary.isError, summary.json.snapshot, summary.json.objectCount]).toEqual([false, big, BIG_OBJECTS]);
    const paths = await call<{ type: string; instances: number; reachable: number }>(c, 'paths_to_roots', { snapshot: big, type: 'System.String' });
    // the synthetic heap's String types (one per module) add up to the instances of the name
    const strings = await call<{ rows: { type: string; count: number }[] }>(c, 'top_types', { snapshot: big, filter: 'System.String', limit: 500 });
    const count = strings.json.rows.filter((r) => r.type === 'System.String').reduce((sum, r) => sum + r.count, 0);
    expect([paths.isError, paths.json.type, paths.json.instances]).toEqual([false, 'System.String', count]);
    expect(count).toBe(401_112);
  }, 300_000);

  it('the cancellation reaches the analyses: a query whose request is already cancelled ends with the code cancelled', async () => {
    await connect();
    const s = (await store!.openFile(CHAIN)).id;
    const gone = AbortSignal.abort();
    for (const [op, args] of [
      ['paths_to_roots', { address: '0x10040' }],
      ['inspections', { base: null }],
      ['suspects', { baseline: null }],
      ['type_summary', {}],
    ] as const) {
      await expect(store!.query(s, op, args, gone), op).rejects.toMatchObject({ code: 'cancelled' });
    }
    // a bounded query has no loop to check in and answers; so do the cancelled ones when asked again
    const dom = await store!.query<{ parent: { retainedSize: number } }>(s, 'dominators', {}, gone);
    expect(dom.parent.retainedSize).toBe(100 * LINK_BYTES);
    const paths = await store!.query<{ paths: { length: number }[] }>(s, 'paths_to_roots', { address: '0x10040' });
    expect(paths.paths.map((p) => p.length)).toEqual([2]);
  }, 120_000);

  it('close_snapshot during a long query on it: close is answered at once, the query ends with session/not-found', async () => {
    const c = await connect();
    const big = (await call<OpenJson>(c, 'open_snapshot', { path: BIG })).json.snapshot;
    const order: string[] = [];
    const running = call(c, 'paths_to_roots', { snapshot: big, type: 'System.String' }).then((r) => (order.push('paths'), r));
    const closed = await call<{ openSnapshots: string[] }>(c, 'close_snapshot', { snapshot: big });
    order.push('close');
    expect([closed.isError, closed.json.openSnapshots]).toEqual([false, []]);
    const r = await running;
    expect(order).toEqual(['close', 'paths']);
    expect([r.isError, r.json.error]).toEqual([true, { code: 'session/not-found', message: `snapshot ${big} was closed`, detail: { snapshot: big } }]);
    await expect.poll(() => store!.workerCount(), { timeout: 60_000 }).toBe(0);
  }, 300_000);

  it('a snapshot whose worker dies is a coded tool error, then gone from the list; the server keeps serving', async () => {
    const c = await connect();
    const a = (await call<OpenJson>(c, 'open_snapshot', { path: CHAIN })).json.snapshot;
    const b = (await call<OpenJson>(c, 'open_snapshot', { path: CHAIN })).json.snapshot;
    await store!.get(a).worker.kill();
    const dead = await call(c, 'summary', { snapshot: a });
    expect([dead.isError, dead.json.error.code]).toEqual([true, 'session/not-found']);
    const diff = await call(c, 'diff', { base: a, new: b });
    expect(diff.json.error).toEqual({ code: 'session/not-found', message: `no open snapshot "${a}" (open: ${b})`, detail: { snapshot: a } });
    const alive = await call<{ snapshot: string; objectCount: number }>(c, 'summary', { snapshot: b });
    expect([alive.isError, alive.json.objectCount]).toEqual([false, 100]);
  }, 120_000);
});

describe.skipIf(process.platform === 'win32')('heapscope mcp: a cancelled process-dump open', () => {
  /** A stand-in dump helper ($HEAPSCOPE_DUMP_READER) that writes the start of its stream, its pid to a file, then never finishes. */
  function stuckHelper(pidFile: string): string {
    const w = new DumpStreamWriter();
    w.info('pointerSize', '8').type(0, 'Foo').progress(0, 8000);
    const head = Buffer.from(w.finish()).toString('base64');
    const path = join(dir, 'stuck-helper');
    writeFileSync(
      path,
      `#!${process.execPath}\nrequire('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\n` +
        `process.stdout.write(Buffer.from(${JSON.stringify(head)}, 'base64'));\nsetInterval(() => {}, 1000);\n`,
      { mode: 0o755 },
    );
    return path;
  }

  it('stops its reader, which kills the helper process, and the thread ends: nothing is orphaned', async () => {
    const pidFile = join(dir, 'helper.pid');
    process.env.HEAPSCOPE_DUMP_READER = stuckHelper(pidFile);
    const core = join(dir, 'core.4242');
    const h = new Uint8Array(64);
    h.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
    h[16] = 4; // ELF ET_CORE: a process dump by content
    writeFileSync(core, h);
    const c = await connect();
    let reading!: () => void;
    const started = new Promise<void>((resolve) => (reading = resolve));
    const abort = new AbortController();
    const open = c.callTool({ name: 'open_snapshot', arguments: { path: core } }, undefined, { signal: abort.signal, onprogress: (p) => (p.message?.startsWith('reading') ? reading() : undefined) });
    await started; // the helper runs and its stream is being read
    const pid = Number(readFileSync(pidFile, 'utf8'));
    helperPids.push(pid);
    expect(alive(pid)).toBe(true);
    abort.abort('stop');
    await expect(open).rejects.toThrow('stop');
    await expect.poll(() => alive(pid), { timeout: 60_000 }).toBe(false);
    await expect.poll(() => store!.workerCount(), { timeout: 60_000 }).toBe(0);
  }, 120_000);
});
