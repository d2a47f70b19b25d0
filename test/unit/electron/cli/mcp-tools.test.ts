import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import '../../../../shared/formats/all-readers.js';
import type { TypePathBranch } from '../../../../shared/analysis/type-path-tree.js';
import { capBranches } from '../../../../electron/cli/mcp/retention-tools.js';
import { SnapshotStore } from '../../../../electron/cli/mcp/snapshot-store.js';
import { LINK_BYTES, writeChainGcdump } from '../../../helpers/chain-heap.js';
import { writeGcdump } from '../../../../shared/formats/gcdump/gcdump-writer.js';
import { HeapGraphBuilder } from '../../../../shared/graph/heap-graph-builder.js';
import { NODE_PSEUDO } from '../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../shared/graph/metadata.js';
import { generateCfHeapLogText } from '../../../tools/gen-cf-heaplog.js';
import type { DominatorJson, DominatorsJson, ObjectPathsJson, OpenJson, PageJson, ToolErrorJson, TypeRowJson } from '../../../helpers/mcp-answers.js';
import { callTool, connectInMemory } from '../../../helpers/mcp-client.js';

/**
 * The MCP tools' own logic on hand-built heaps, in process (the SDK's in-memory transport): paging,
 * the caps on long paths and big path trees, the open-snapshot limit, coded errors. The numbers
 * the tools pass through from the analyses are compared with the CLI in
 * test/integration/cli-mcp.test.ts.
 */
const dir = mkdtempSync(join(tmpdir(), 'heapscope-mcp-unit-'));
const CHAIN = join(dir, 'chain.gcdump');
const WIDE = join(dir, 'wide.gcdump');
const addr = (ordinal: number) => '0x' + (0x10000 + 32 * ordinal).toString(16);

beforeAll(() => {
  writeChainGcdump(CHAIN, { chain: 100 }); // [root] → [static vars] → links at ordinals 2..101
  writeChainGcdump(WIDE, { chain: 0, wide: 30 }); // [static vars] → Wide.Type0..29 at ordinals 2..31
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let client: Client | null = null;
let store: SnapshotStore | null = null;
afterEach(async () => {
  await client?.close();
  client = null;
  await store?.closeAll(); // each open snapshot has a worker thread
  store = null;
});

async function connect(maxOpen = 4): Promise<Client> {
  store = new SnapshotStore(maxOpen, { write() {} });
  client = await connectInMemory(store);
  return client;
}

const call = callTool;

async function ok<T = Record<string, unknown>>(c: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const r = await call<T>(c, name, args);
  expect(r.isError, JSON.stringify(r.json)).toBe(false);
  return r.json;
}

describe('MCP tools on hand-built heaps', () => {
  it('paths_to_roots keeps the root end and the target end of a path longer than maxSteps', async () => {
    const c = await connect();
    const s = (await ok<OpenJson>(c, 'open_snapshot', { path: CHAIN })).snapshot;
    const cut = await ok<ObjectPathsJson>(c, 'paths_to_roots', { snapshot: s, address: addr(101), maxSteps: 10 });
    expect([cut.reachable, cut.truncated, cut.paths.length]).toEqual([true, false, 1]);
    const p = cut.paths[0];
    // 102 steps (root, [static vars], 100 links), 101 references; steps 0-4 and the last 5 are kept
    expect([p.length, p.omittedSteps, p.omittedAfterStep, p.rootCategory]).toEqual([101, 92, 4, '[static vars]']);
    expect(p.steps.map((st) => st.address)).toEqual(['0x0', '0x0', addr(2), addr(3), addr(4), addr(97), addr(98), addr(99), addr(100), addr(101)]);
    expect(p.steps.slice(2).every((st) => st.typeName === 'Chain.Link' && st.selfSize === LINK_BYTES)).toBe(true);
    const whole = await ok<ObjectPathsJson>(c, 'paths_to_roots', { snapshot: s, address: addr(101), maxSteps: 1000 });
    expect([whole.paths[0].length, whole.paths[0].steps.length, 'omittedSteps' in whole.paths[0]]).toEqual([101, 102, false]);
  });

  it('open_snapshot sends growing progress notifications through every phase when the client asks', async () => {
    const c = await connect();
    const seen: { progress: number; total?: number; message?: string }[] = [];
    const r = (await c.callTool({ name: 'open_snapshot', arguments: { path: CHAIN } }, undefined, { onprogress: (p) => seen.push(p) })) as { isError?: boolean };
    expect(r.isError).toBeFalsy();
    // each phase's first and last call always go out: the first one is "reading 0%" at progress 0
    expect(seen[0]).toEqual({ progress: 0, message: 'reading 0%' });
    expect(seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress)).toBe(true);
    const phases = [...new Set(seen.map((p) => p.message!.replace(/ \d+%$/, '')))];
    expect(phases).toEqual(['reading', 'dominators', 'retained', 'tree', 'types']);
    expect(seen.every((p) => p.total === undefined)).toBe(true);
  });

  it('dominators walks the chain with exact retained sizes', async () => {
    const c = await connect();
    const s = (await ok<OpenJson>(c, 'open_snapshot', { path: CHAIN })).snapshot;
    const root = await ok<DominatorsJson>(c, 'dominators', { snapshot: s });
    expect([root.parent.retainedSize, root.totalRows, root.nextOffset]).toEqual([100 * LINK_BYTES, 1, null]);
    expect(root.rows[0]).toMatchObject({ type: '[static vars]', pseudo: true, retainedSize: 100 * LINK_BYTES, percentOfReachable: 100, childCount: 1 });
    const head = await ok<DominatorsJson>(c, 'dominators', { snapshot: s, node: root.rows[0].node });
    // the first link keeps the whole list: 100 × 24; the 50th keeps 51 links
    expect(head.rows.map((r: DominatorJson) => [r.address, r.retainedSize, r.childCount])).toEqual([[addr(2), 2_400, 1]]);
    let node = head.rows[0].node as number;
    for (let k = 0; k < 49; k++) node = (await ok<DominatorsJson>(c, 'dominators', { snapshot: s, node })).rows[0].node;
    const at51 = await ok<DominatorsJson>(c, 'dominators', { snapshot: s, node });
    expect(at51.parent).toMatchObject({ address: addr(51), retainedSize: 51 * LINK_BYTES, shallowSize: LINK_BYTES, percentOfReachable: 51 });
    expect(await ok<DominatorsJson>(c, 'dominators', { snapshot: s, address: addr(51) })).toEqual(at51);
    const both = await call(c, 'dominators', { snapshot: s, address: addr(51), node: 3 });
    expect([both.isError, both.json.error.code]).toEqual([true, 'usage/bad-argument']);
    const nowhere = await call(c, 'dominators', { snapshot: s, address: '0x20' });
    expect(nowhere.json.error).toEqual({ code: 'usage/bad-argument', message: 'no object at address 0x20 in chain.gcdump' });
    const notHex = await call(c, 'paths_to_roots', { snapshot: s, address: 'zz' });
    expect(notHex.json.error).toEqual({ code: 'usage/bad-argument', message: 'address must be hex like 0x7f3a2c10 (got "zz")' });
    const last = await ok<DominatorsJson>(c, 'dominators', { snapshot: s, node: at51.parent.node + 50 });
    expect([last.parent.address, last.parent.retainedSize, last.totalRows, last.rows]).toEqual([addr(101), LINK_BYTES, 0, []]);
  });

  it('pages: dominators, top_types and diff give totalRows, offset and nextOffset', async () => {
    const c = await connect();
    const s = (await ok<OpenJson>(c, 'open_snapshot', { path: WIDE })).snapshot;
    const statics = (await ok<DominatorsJson>(c, 'dominators', { snapshot: s })).rows[0].node;
    // 30 children of 24 bytes: ties in ascending ordinal order
    const p1 = await ok<DominatorsJson>(c, 'dominators', { snapshot: s, node: statics, limit: 7 });
    expect([p1.totalRows, p1.offset, p1.nextOffset, p1.rows.map((r: DominatorJson) => r.address)]).toEqual([30, 0, 7, [2, 3, 4, 5, 6, 7, 8].map(addr)]);
    const tail = await ok<DominatorsJson>(c, 'dominators', { snapshot: s, node: statics, offset: 28, limit: 7 });
    expect([tail.totalRows, tail.offset, tail.nextOffset, tail.rows.map((r: DominatorJson) => r.address)]).toEqual([30, 28, null, [addr(30), addr(31)]]);
    const past = await ok<DominatorsJson>(c, 'dominators', { snapshot: s, node: statics, offset: 99 });
    expect([past.offset, past.nextOffset, past.rows]).toEqual([30, null, []]);

    const byName = await ok<PageJson<TypeRowJson>>(c, 'top_types', { snapshot: s, sort: 'name', limit: 4 });
    expect([byName.totalRows, byName.nextOffset, byName.rows.map((r) => r.type)]).toEqual([30, 4, ['Wide.Type0', 'Wide.Type1', 'Wide.Type10', 'Wide.Type11']]);
    const filtered = await ok<PageJson<TypeRowJson>>(c, 'top_types', { snapshot: s, filter: 'TYPE2', sort: 'name', limit: 500 });
    expect(filtered.rows.map((r) => [r.type, r.count, r.shallowSize, r.retainedSize])).toEqual(
      ['Wide.Type2', ...Array.from({ length: 10 }, (_, i) => `Wide.Type2${i}`)].map((t) => [t, 1, LINK_BYTES, LINK_BYTES]),
    );
    // diff pages the same way: the chain heap against the wide one, every row a type added or removed
    const chain = (await ok<OpenJson>(c, 'open_snapshot', { path: CHAIN })).snapshot;
    type DiffRow = { type: string; status: string; countDelta: number; retainedDelta: number };
    const d1 = await ok<PageJson<DiffRow>>(c, 'diff', { base: chain, new: s, sort: 'name', limit: 3 });
    const d2 = await ok<PageJson<DiffRow>>(c, 'diff', { base: chain, new: s, sort: 'name', offset: 30, limit: 3 });
    expect([d1.totalRows, d1.nextOffset, d1.rows.map((r) => [r.type, r.status, r.countDelta, r.retainedDelta])]).toEqual([
      31,
      3,
      [
        ['Chain.Link', 'removed', -100, -100 * LINK_BYTES],
        ['Wide.Type0', 'added', 1, LINK_BYTES],
        ['Wide.Type1', 'added', 1, LINK_BYTES],
      ],
    ]);
    expect([d2.offset, d2.nextOffset, d2.rows.map((r) => r.type)]).toEqual([30, null, ['Wide.Type9']]);
    // arguments outside a tool's schema: refused by the SDK's validation, as plain text (not our JSON)
    const tooMany = (await c.callTool({ name: 'top_types', arguments: { snapshot: s, limit: 501 } })) as { isError?: boolean; content: { text: string }[] };
    expect([tooMany.isError, /Input validation error/.test(tooMany.content[0].text)]).toEqual([true, true]);
  });

  it('refuses one snapshot over --max-open, also when two opens race, and frees a slot on close', async () => {
    const c = await connect(1);
    const [a, b] = await Promise.all([call<OpenJson & ToolErrorJson>(c, 'open_snapshot', { path: CHAIN }), call<OpenJson & ToolErrorJson>(c, 'open_snapshot', { path: WIDE })]);
    expect([a.isError, b.isError].sort()).toEqual([false, true]);
    const refused = a.isError ? a : b;
    expect(refused.json.error).toEqual({ code: 'mcp/too-many-snapshots', message: '1 snapshot is open or opening (the limit is 1): close one with close_snapshot first', detail: { open: 1, limit: 1 } });
    const id = (a.isError ? b : a).json.snapshot;
    expect(await ok(c, 'close_snapshot', { snapshot: id })).toMatchObject({ closed: id, openSnapshots: [] });
    expect((await ok<OpenJson>(c, 'open_snapshot', { path: WIDE })).snapshot).toBe('s2');
    const unknown = await call(c, 'dominators', { snapshot: 's1' });
    expect(unknown).toEqual({ isError: true, json: { error: { code: 'session/not-found', message: 'no open snapshot "s1" (open: s2)', detail: { snapshot: 's1' } } } });
  });
});

describe('summary of a file with many root categories', () => {
  /** [root] → 60 pseudo categories "[roots 0]" … "[roots 59]", category i holding i + 1 objects of 24 bytes. */
  function manyRootCategories(path: string): void {
    const cats = 60;
    const objects = (cats * (cats + 1)) / 2;
    const n = 1 + cats + objects;
    const b = new HeapGraphBuilder({ expectedNodes: n, expectedEdges: n });
    b.createNodes(n);
    const obj = b.addType('Rooted.Thing', 'app.dll', LINK_BYTES);
    b.addFlags(0, NODE_PSEUDO);
    b.setNode(0, b.addType('[root]', null, 0), 0, Array.from({ length: cats }, (_, i) => 1 + i));
    let next = 1 + cats;
    for (let i = 0; i < cats; i++) {
      const held = Array.from({ length: i + 1 }, (_, k) => next + k);
      b.setNode(1 + i, b.addType(`[roots ${i}]`, null, 0), 0, held);
      b.addFlags(1 + i, NODE_PSEUDO);
      for (const o of held) {
        b.setNode(o, obj, LINK_BYTES, []);
        b.setAddress(o, 0x10000 + 32 * o);
      }
      next += i + 1;
    }
    b.setRoot(0);
    writeFileSync(path, Buffer.concat(writeGcdump(b.finish(emptyMetadata('synthetic')))));
  }

  it('lists the 50 most populous and says what it left out', async () => {
    const path = join(dir, 'many-roots.gcdump');
    manyRootCategories(path);
    const c = await connect();
    const s = (await ok<OpenJson>(c, 'open_snapshot', { path })).snapshot;
    const sum = await ok<{ rootsByCategory: { category: string; count: number }[]; rootsByCategoryOmitted: { categories: number; roots: number } }>(c, 'summary', { snapshot: s });
    expect(sum.rootsByCategory.map((r) => [r.category, r.count])).toEqual(Array.from({ length: 50 }, (_, k) => [`[roots ${59 - k}]`, 60 - k]));
    // categories 0..9 hold 1 + 2 + … + 10 = 55 roots
    expect(sum.rootsByCategoryOmitted).toEqual({ categories: 10, roots: 55 });
    const small = (await ok<OpenJson>(c, 'open_snapshot', { path: WIDE })).snapshot;
    expect(await ok(c, 'summary', { snapshot: small })).not.toHaveProperty('rootsByCategoryOmitted');
  });
});

describe('MCP tool descriptions', () => {
  it('say how big an answer can be: paged tools give the page size and maximum of their schema, the others their caps', async () => {
    const c = await connect();
    const { tools } = await c.listTools();
    type Limit = { maximum: number; description: string };
    const paged = tools.filter((t) => (t.inputSchema.properties as Record<string, unknown> | undefined)?.limit !== undefined);
    expect(paged.map((t) => t.name).sort()).toEqual(['diff', 'dominators', 'top_types']);
    for (const t of paged) {
      const limit = (t.inputSchema.properties as Record<string, Limit>).limit;
      const def = Number(/default (\d+)/.exec(limit.description)![1]);
      expect([t.name, limit.description]).toEqual([t.name, `Rows to return (default ${def}, at most ${limit.maximum}).`]);
      expect(t.description, t.name).toContain(`Paged: offset / limit (${def} rows by default, at most ${limit.maximum} a page)`);
    }
    const caps = Object.fromEntries(tools.filter((t) => !paged.includes(t)).map((t) => [t.name, /Size: at most|\(at most \d+\)/.test(t.description!)]));
    expect(caps).toMatchObject({ paths_to_roots: true, inspections: true, suspects: true });
  });
});

describe('open_snapshot of a Compact Framework heap log', () => {
  it('opens the AppDomain section that domain names, and the first without it', async () => {
    const { text, sections } = generateCfHeapLogText({ objects: 1500, seed: 21 });
    const log = join(dir, 'bubble.gclog');
    writeFileSync(log, text);
    const c = await connect();
    const first = await ok<OpenJson & { format: string }>(c, 'open_snapshot', { path: log });
    const second = await ok<OpenJson & { format: string }>(c, 'open_snapshot', { path: log, domain: '1' });
    expect([first.format, first.objectCount, second.objectCount]).toEqual(['cf-heaplog', sections[0].objects, sections[1].objects]);
    const byName = await ok<OpenJson>(c, 'open_snapshot', { path: log, domain: sections[1].name });
    expect(byName.objectCount).toBe(sections[1].objects);
    const none = await call(c, 'open_snapshot', { path: log, domain: 'no-such-domain' });
    expect([none.isError, none.json.error.code]).toEqual([true, 'usage/bad-argument']);
  });
});

describe('capBranches', () => {
  const br = (typeName: string, count: number, children: TypePathBranch[] = []): TypePathBranch => ({ typeName, count, endsHere: 0, cutOff: 0, children, omittedBranches: 0, omittedCount: 0 });
  const tree = () => [br('T', 10, [br('A', 6, [br('A1', 4), br('A2', 2)]), br('B', 3, [br('B1', 3)]), br('C', 1)])];
  const shape = (list: TypePathBranch[]): unknown[] => list.map((b) => [b.typeName, b.count, b.omittedBranches, b.omittedCount, shape(b.children)]);

  it('keeps the first branches depth first and folds the rest into their parents', () => {
    expect(shape(capBranches(tree(), 4))).toEqual([['T', 10, 2, 4, [['A', 6, 0, 0, [['A1', 4, 0, 0, []], ['A2', 2, 0, 0, []]]]]]]);
    expect(shape(capBranches(tree(), 2))).toEqual([['T', 10, 2, 4, [['A', 6, 2, 6, []]]]]);
    expect(shape(capBranches(tree(), 99))).toEqual(shape(tree()));
  });

  it('leaves its input alone', () => {
    const t = tree();
    capBranches(t, 1);
    expect(shape(t)).toEqual(shape(tree()));
  });
});
