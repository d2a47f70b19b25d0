import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { liveHelpers } from '../../electron/dump-reader/helper-process.js';
import { captureIo } from '../helpers/capture-io.js';
import type { RunningApp } from '../helpers/dotnet-app.js';
import { dumpDotnetApp, processDumpSkip, stopDumped } from '../helpers/process-dump.js';
import { peerMissing, peerTool } from '../helpers/peer-tools.js';

/**
 * Sparse arrays, empty arrays and empty collections on a real process dump: SparseApp
 * (test/dotnet/SparseApp) keeps known arrays and collections of its own types; `heapscope dump`
 * writes its core and `heapscope inspect` reads it through the ClrMD helper. Sizes on 64-bit: an
 * array is 24 bytes (object header, method table, length) plus its elements; a List<T> is 32 bytes.
 * The other BCL collections (SparseApp's CollectionsKept, 20 empty and 5 holding 3 Elements of
 * each kind) are checked against SOS `dumpheap -stat -live` (dotnet-dump) for their counts and sizes.
 */
const dotnetDump = peerTool('dotnet-dump');
const skip = processDumpSkip('dump tests');

interface InspectDoc {
  findings: { kind: string; title: string; objects: number; bytes: number; shallowBytes: number; examples: { type: string }[]; details: Record<string, unknown> }[];
  unavailable: { kind: string }[];
}

describe.skipIf(skip !== null)(`array and collection fill of a process dump (${skip ?? 'dotnet and the dump reader found'})`, () => {
  let app: RunningApp;
  let dir: string;
  let dump: string;
  let gcdump: string;
  let doc: InspectDoc;
  beforeAll(async () => {
    ({ dir, dump, app } = await dumpDotnetApp('SparseApp', { prefix: 'heapscope-sparse-', file: 'sparse.dmp', keepRunning: true }));
    gcdump = join(dir, 'sparse.gcdump');
    const c = captureIo();
    expect(await runCli(['collect', '-p', String(app.pid), '-o', gcdump], c.io), c.err).toBe(0);
    const j = captureIo();
    expect(await runCli(['inspect', dump, '--format', 'json'], j.io), j.err).toBe(0);
    doc = JSON.parse(j.out) as InspectDoc;
  }, 300_000);
  afterAll(async () => {
    if (app) await stopDumped(app);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const ours = (kind: string) =>
    doc.findings.filter((f) => f.kind === kind && f.title.includes('HeapscopeTest.')).map((f) => ({ objects: f.objects, bytes: f.bytes, shallowBytes: f.shallowBytes, details: f.details }));

  it('finds exactly the sparse arrays the program made, with the bytes their default elements take', () => {
    expect(ours('sparse-arrays')).toEqual([
      // 1,000 Item[100] with 3 set, and the 200 lists' Item[16] with none set
      {
        objects: 1200,
        bytes: 1000 * 824 + 200 * 152,
        shallowBytes: 1000 * 824 + 200 * 152,
        details: { type: 'HeapscopeTest.Item[]', elements: 103_200, nonDefaultElements: 3000, elementSize: 8, wastedBytes: 1000 * 97 * 8 + 200 * 16 * 8 },
      },
      // 100 Pair[64] with 10 structs set: an all-zero struct is default
      { objects: 100, bytes: 104_800, shallowBytes: 104_800, details: { type: 'HeapscopeTest.Pair[]', elements: 6400, nonDefaultElements: 1000, elementSize: 16, wastedBytes: 100 * 54 * 16 } },
      // 10 Item[8, 8] with 3 set: the bounds before the elements are not elements
      { objects: 10, bytes: 5520, shallowBytes: 5520, details: { type: 'HeapscopeTest.Item[,]', elements: 640, nonDefaultElements: 30, elementSize: 8, wastedBytes: 10 * 61 * 8 } },
      // the ConcurrentBags' per-thread Element[32]: 10 emptied (TryTake clears the slot) and 5 with 3 set
      { objects: 15, bytes: 15 * 280, shallowBytes: 15 * 280, details: { type: 'HeapscopeTest.Element[]', elements: 480, nonDefaultElements: 15, elementSize: 8, wastedBytes: (480 - 15) * 8 } },
    ]);
    expect(liveHelpers()).toBe(0);
  });

  it('finds the 500 empty Marker[] and the 250 empty collections', () => {
    expect(ours('empty-arrays')).toEqual([
      { objects: 500, bytes: 12_000, shallowBytes: 12_000, details: { type: 'HeapscopeTest.Marker[]' } },
      // the BCL's own: Array.Empty<Element>() (SortedList's values) and List<Element>'s empty array
      { objects: 2, bytes: 48, shallowBytes: 48, details: { type: 'HeapscopeTest.Element[]' } },
    ]);
    const empty = ours('empty-collections');
    expect(empty.find((f) => f.details.type === 'System.Collections.Generic.List<HeapscopeTest.Item>')).toEqual({
      objects: 200,
      bytes: 200 * (32 + 152),
      shallowBytes: 200 * 32,
      details: { type: 'System.Collections.Generic.List<HeapscopeTest.Item>', withCapacity: 200, backingBytes: 200 * 152, collectionKind: 'List' },
    });
    // 25 with capacity 3: an int[3] _buckets (24 + 12 = 36 bytes: ClrMD and SOS give object sizes before alignment) and an Entry[3] _entries (24 + 3 × 24 = 96)
    const dict = empty.find((f) => f.details.type === 'System.Collections.Generic.Dictionary<System.Int32, HeapscopeTest.Item>')!;
    expect(dict.objects).toBe(50);
    expect(dict.details).toEqual({ type: 'System.Collections.Generic.Dictionary<System.Int32, HeapscopeTest.Item>', withCapacity: 25, backingBytes: 25 * (36 + 96), collectionKind: 'Dictionary' });
    expect(dict.bytes).toBe(dict.shallowBytes + 25 * (36 + 96));
    expect(dict.shallowBytes).toBe(50 * 80);
    expect(doc.unavailable.map((u) => u.kind)).toEqual([]);
  });

  // The other BCL collections: 20 empty of each (CollectionsKept in SparseApp). Sizes as SOS gives
  // them (see the peer test below): ConcurrentDictionary 40, its Tables 56, VolatileNode[7] 80,
  // Object[2] locks 40 (the array is its own first lock) + one Lock 24, Int32[2] per-lock counts 32;
  // ConcurrentQueue 40, its segment 232, Slot[32] 536, Slot[64] 1,048, cross-segment lock 24; ConcurrentBag 40,
  // ThreadLocal 40, LinkedSlot 48, WorkStealingQueue 64, Element[32] 280; SortedDictionary 40, its
  // TreeSet 48, comparer 24; SortedList 64, Int32[4] 40, Element[4] 56; SortedSet 48; LinkedList 40;
  // PriorityQueue 48, its (Element, Int32)[4] 88; ConcurrentStack 24;
  // Collection 24, ObservableCollection 56, List 32, Element[8] 88; StringBuilder 48, Char[256] 536,
  // Char[200] 424. The 5 filled ones of each kind (Count 3) must not be among them.
  const collection = (type: string) => {
    const f = doc.findings.find((x) => x.kind === 'empty-collections' && x.details.type === type);
    return f && { objects: f.objects, bytes: f.bytes, shallowBytes: f.shallowBytes, details: f.details };
  };
  const G = 'System.Collections.Generic.';
  const C = 'System.Collections.Concurrent.';
  const O = 'System.Collections.ObjectModel.';
  const E = 'HeapscopeTest.Element';

  it('finds the 20 empty ones of each concurrent collection, with the storage they allocated', () => {
    // storage: Tables + buckets + lock array + the second lock + counts = 232; retained adds the dictionary
    expect(collection(`${C}ConcurrentDictionary<System.Int32, ${E}>`)).toEqual({
      objects: 20,
      bytes: 20 * (40 + 232),
      shallowBytes: 20 * 40,
      details: { type: `${C}ConcurrentDictionary<System.Int32, ${E}>`, withCapacity: 20, backingBytes: 20 * 232, collectionKind: 'ConcurrentDictionary' },
    });
    // storage: one segment and its slots, 32 in a new queue, 64 (1,048 bytes) in one emptied after
    // 40 items (its first segment is gone); retained adds the queue and its cross-segment lock
    expect(collection(`${C}ConcurrentQueue<${E}>`)).toEqual({
      objects: 20,
      bytes: 20 * (40 + 24) + 10 * (232 + 536) + 10 * (232 + 1048),
      shallowBytes: 20 * 40,
      details: { type: `${C}ConcurrentQueue<${E}>`, withCapacity: 20, backingBytes: 10 * (232 + 536) + 10 * (232 + 1048), collectionKind: 'ConcurrentQueue' },
    });
    // 10 never added to (no per-thread queue), 10 emptied: a WorkStealingQueue with an Element[32]
    // each, which the thread's ThreadLocal slot also holds, so retained is the bag, its ThreadLocal
    // and (never added to) the ThreadLocal's sentinel slot
    expect(collection(`${C}ConcurrentBag<${E}>`)).toEqual({
      objects: 20,
      bytes: 10 * (40 + 40 + 48) + 10 * (40 + 40),
      shallowBytes: 20 * 40,
      details: { type: `${C}ConcurrentBag<${E}>`, withCapacity: 10, backingBytes: 10 * (64 + 280), collectionKind: 'ConcurrentBag' },
    });
  });

  it('finds the 20 empty ones of each sorted, linked and priority collection: node-based ones have no storage', () => {
    expect(collection(`${G}SortedDictionary<System.Int32, ${E}>`)).toEqual({
      objects: 20,
      bytes: 20 * (40 + 48 + 24),
      shallowBytes: 20 * 40,
      details: { type: `${G}SortedDictionary<System.Int32, ${E}>`, withCapacity: 0, backingBytes: 0, collectionKind: 'SortedDictionary' },
    });
    // 10 without storage (shared empty arrays), 10 with room for 4 keys and 4 values
    expect(collection(`${G}SortedList<System.Int32, ${E}>`)).toEqual({
      objects: 20,
      bytes: 20 * 64 + 10 * (40 + 56),
      shallowBytes: 20 * 64,
      details: { type: `${G}SortedList<System.Int32, ${E}>`, withCapacity: 10, backingBytes: 10 * (40 + 56), collectionKind: 'SortedList' },
    });
    // 10 never pushed to, 10 pushed to and cleared: no nodes either way
    expect(collection(`${C}ConcurrentStack<${E}>`)).toEqual({
      objects: 20,
      bytes: 20 * 24,
      shallowBytes: 20 * 24,
      details: { type: `${C}ConcurrentStack<${E}>`, withCapacity: 0, backingBytes: 0, collectionKind: 'ConcurrentStack' },
    });
    // 10 without storage (a shared empty array), 10 with room for 4 (Element, int) pairs: 24 + 4 × 16
    expect(collection(`${G}PriorityQueue<${E}, System.Int32>`)).toEqual({
      objects: 20,
      bytes: 20 * 48 + 10 * 88,
      shallowBytes: 20 * 48,
      details: { type: `${G}PriorityQueue<${E}, System.Int32>`, withCapacity: 10, backingBytes: 10 * 88, collectionKind: 'PriorityQueue' },
    });
    expect(collection(`${G}SortedSet<${E}>`)).toEqual({
      objects: 20,
      bytes: 20 * 48,
      shallowBytes: 20 * 48,
      details: { type: `${G}SortedSet<${E}>`, withCapacity: 0, backingBytes: 0, collectionKind: 'SortedSet' },
    });
    expect(collection(`${G}LinkedList<${E}>`)).toEqual({
      objects: 20,
      bytes: 20 * 40,
      shallowBytes: 20 * 40,
      details: { type: `${G}LinkedList<${E}>`, withCapacity: 0, backingBytes: 0, collectionKind: 'LinkedList' },
    });
  });

  it('finds the empty Collection, ObservableCollection, StringBuilder and derived-list objects, and the lists the collections wrap', () => {
    // 10 wrap a List of capacity 0, 10 one of capacity 8 (Element[8], the storage)
    expect(collection(`${O}Collection<${E}>`)).toEqual({
      objects: 20,
      bytes: 20 * (24 + 32) + 10 * 88,
      shallowBytes: 20 * 24,
      details: { type: `${O}Collection<${E}>`, withCapacity: 10, backingBytes: 10 * 88, collectionKind: 'Collection' },
    });
    expect(collection(`${O}ObservableCollection<${E}>`)).toEqual({
      objects: 20,
      bytes: 20 * (56 + 32),
      shallowBytes: 20 * 56,
      details: { type: `${O}ObservableCollection<${E}>`, withCapacity: 0, backingBytes: 0, collectionKind: 'Collection' },
    });
    // the program's own ElementList : List<Element>, recognised by its base type, each with an Element[4]
    expect(collection('HeapscopeTest.ElementList')).toEqual({
      objects: 20,
      bytes: 20 * (32 + 56),
      shallowBytes: 20 * 32,
      details: { type: 'HeapscopeTest.ElementList', withCapacity: 20, backingBytes: 20 * 56, collectionKind: 'List' },
    });
    // a SortedDictionary's TreeSet derives from SortedSet but is part of the dictionary: not listed apart
    expect(doc.findings.filter((f) => f.kind === 'empty-collections' && String(f.details.type).includes('TreeSet'))).toEqual([]);
    // the 40 wrapped lists are empty Lists too; their bytes count with the collections that hold them
    expect(collection(`${G}List<${E}>`)).toEqual({
      objects: 40,
      bytes: 0,
      shallowBytes: 40 * 32,
      details: { type: `${G}List<${E}>`, withCapacity: 10, backingBytes: 10 * 88, collectionKind: 'List' },
    });
    // 10 of capacity 256 never appended to, 10 that held 150 chars of 200 and were cleared (their
    // Char[200] is 75% set, so Sparse arrays misses it); the app's only StringBuilders
    expect(collection('System.Text.StringBuilder')).toEqual({
      objects: 20,
      bytes: 20 * 48 + 10 * 536 + 10 * 424,
      shallowBytes: 20 * 48,
      details: { type: 'System.Text.StringBuilder', withCapacity: 20, backingBytes: 10 * 536 + 10 * 424, collectionKind: 'StringBuilder' },
    });
  });

  it.skipIf(!dotnetDump)(`has the counts and sizes of SOS \`dumpheap -stat -live\` for each collection type (${dotnetDump ? 'dotnet-dump found' : peerMissing('dotnet-dump')})`, () => {
    const sos = execFileSync(dotnetDump!, ['analyze', dump, '-c', `dumpheap -stat -live -type ${E}`, '-c', 'dumpheap -stat -live -type System.Text.StringBuilder', '-c', 'exit'], { encoding: 'utf8', timeout: 180_000 });
    const stat = new Map<string, { count: number; size: number }>();
    for (const m of sos.matchAll(/^\s*[0-9a-f]+\s+([\d,]+)\s+([\d,]+) (.+?)\s*$/gm)) stat.set(m[3], { count: Number(m[1].replace(/,/g, '')), size: Number(m[2].replace(/,/g, '')) });
    const types = [
      `${C}ConcurrentDictionary<System.Int32, ${E}>`,
      `${C}ConcurrentQueue<${E}>`,
      `${C}ConcurrentBag<${E}>`,
      `${G}SortedDictionary<System.Int32, ${E}>`,
      `${G}SortedList<System.Int32, ${E}>`,
      `${G}SortedSet<${E}>`,
      `${G}LinkedList<${E}>`,
      `${O}Collection<${E}>`,
      `${O}ObservableCollection<${E}>`,
      'System.Text.StringBuilder',
      `${G}PriorityQueue<${E}, System.Int32>`,
      'HeapscopeTest.ElementList',
      `${C}ConcurrentStack<${E}>`,
    ];
    for (const t of types) {
      // SOS counts all 25 of the type (20 empty, 5 filled), all of one size
      expect(stat.get(t), t).toEqual({ count: 25, size: (collection(t)!.shallowBytes / 20) * 25 });
    }
    // the queues' storage: a segment and its slot array each; all but the 5 filled ones' (232 + 536) are the empty ones'
    const seg = stat.get(`${C}ConcurrentQueueSegment<${E}>`)!;
    const slots = stat.get(`${C}ConcurrentQueueSegment<${E}>+Slot[]`)!;
    expect([seg.count, slots.count]).toEqual([25, 25]);
    expect(collection(`${C}ConcurrentQueue<${E}>`)!.details.backingBytes).toBe(seg.size + slots.size - 5 * (232 + 536));
  }, 200_000);

  it('a .gcdump of the same process has no contents: the three are listed as not checked', async () => {
    const c = captureIo();
    expect(await runCli(['inspect', gcdump, '--format', 'json'], c.io)).toBe(0);
    const r = JSON.parse(c.out) as InspectDoc;
    expect(r.findings.filter((f) => ['sparse-arrays', 'empty-arrays', 'empty-collections'].includes(f.kind))).toEqual([]);
    expect(r.unavailable.map((u) => u.kind)).toEqual(['duplicate-strings', 'sparse-arrays', 'empty-collections']);
  }, 120_000);
});
