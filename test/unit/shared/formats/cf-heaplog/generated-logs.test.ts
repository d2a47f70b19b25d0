import { describe, expect, it } from 'vitest';
import { analyzeGraph } from '../../../../../shared/analysis/analyze.js';
import '../../../../../shared/formats/all-readers.js';
import { listCfHeapLogSections, readCfHeapLog } from '../../../../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import { detectFormat } from '../../../../../shared/formats/detect.js';
import { readSnapshot } from '../../../../../shared/formats/read-snapshot.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { NODE_PINNED, NODE_PSEUDO, NODE_UNDEFINED, NODE_WEAK_EDGES } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { generateCfHeapLogBytes, generateCfHeapLogText, type CfExpectedSection } from '../../../../tools/gen-cf-heaplog.js';

// Known answers come from the generator's construction (see gen-cf-heaplog.ts), never from the reader.
const SEEDS = [1, 2, 3];

const bytesOf = (s: string): Uint8Array => new TextEncoder().encode(s);
const nameOf = (g: HeapGraph, n: number): string => g.types.names[g.nodeType[n]];
const kids = (g: HeapGraph, n: number): number[] => Array.from(g.edgeTarget.subarray(g.firstEdge[n], g.firstEdge[n + 1]));

function nodeById(g: HeapGraph): Map<bigint, number> {
  const m = new Map<bigint, number>();
  for (let n = 0; n < g.nodeCount; n++) if ((g.nodeFlags[n] & NODE_PSEUDO) === 0) m.set(g.address[n], n);
  return m;
}

function checkSection(g: HeapGraph, e: CfExpectedSection, index: number): void {
  let objects = 0;
  let pseudo = 0;
  let undef = 0;
  let pinned = 0;
  for (let n = 0; n < g.nodeCount; n++) {
    const f = g.nodeFlags[n];
    if (f & NODE_PSEUDO) pseudo++;
    else if (f & NODE_UNDEFINED) undef++;
    else objects++;
    if (f & NODE_PINNED) pinned++;
  }
  expect({ objects, pseudo, undef, pinned }).toEqual({ objects: e.objects, pseudo: e.pseudoNodes, undef: 0, pinned: e.pinnedObjects });
  expect(g.totalSize).toBe(e.totalSize);
  // every pseudo-node but the root has exactly one parent; every root record is one edge
  expect(g.edgeCount).toBe(e.references + e.rootRecords + e.pseudoNodes - 1);
  const pseudoTypeNames = new Set<string>();
  for (let n = 0; n < g.nodeCount; n++) if (g.nodeFlags[n] & NODE_PSEUDO) pseudoTypeNames.add(nameOf(g, n));
  expect(g.types.count).toBe(1 + e.typeRecords + pseudoTypeNames.size);
  expect(g.problems.total).toBe(0);

  const categories: Record<string, number> = {};
  const holders: Record<string, number> = {};
  for (const c of kids(g, g.rootIndex)) {
    categories[nameOf(g, c)] = kids(g, c).length;
    expect(g.nodeFlags[c] & NODE_WEAK_EDGES).toBe(nameOf(g, c) === '[weak GC handles]' ? NODE_WEAK_EDGES : 0);
    if (nameOf(g, c) === '[static vars]') for (const h of kids(g, c)) holders[nameOf(g, h)] = kids(g, h).length;
  }
  expect(categories).toEqual(e.categories);
  expect(holders).toEqual(e.staticHolders);

  expect(g.metadata.processName).toBe(e.name);
  expect(g.metadata.extra).toEqual({
    appDomain: e.name,
    startTimestampMs: e.startMs,
    endTimestampMs: e.endMs,
    durationMs: e.durationMs,
    sectionIndex: index,
    sectionCount: 2,
  });
}

describe.each(SEEDS)('generated two-domain log, seed %i', (seed) => {
  const { text, sections } = generateCfHeapLogText({ objects: 3000, seed });
  const src = new MemoryByteSource(bytesOf(text), 'gen.log');

  it('is detected as a CF heap log by content', () => {
    expect(detectFormat(bytesOf(text.slice(0, 4096)))).toBe('cf-heaplog');
  });

  it('lists both sections', async () => {
    expect(await listCfHeapLogSections(src)).toEqual(
      sections.map((s, index) => ({ index, name: s.name, startMs: s.startMs, endMs: s.endMs, objects: s.objects })),
    );
  });

  it.each([0, 1])('section %i matches the known answers (by index and by name)', async (index) => {
    const e = sections[index];
    checkSection(await readCfHeapLog(src, { select: String(index) }), e, index);
    checkSection(await readCfHeapLog(src, { select: e.name }), e, index);
  });

  it.each([0, 1])('section %i: weak-only and unrooted objects are unreachable, every strong one is reachable', async (index) => {
    const e = sections[index];
    const g = await readCfHeapLog(src, { select: String(index) });
    const a = analyzeGraph(g);
    let reachableObjects = 0;
    for (let n = 0; n < g.nodeCount; n++) if (a.reachable[n] && (g.nodeFlags[n] & NODE_PSEUDO) === 0) reachableObjects++;
    expect(reachableObjects).toBe(e.strongObjects);
    expect(a.unreachableCount).toBe(e.weakOnlyObjects + e.garbageObjects);
    const ids = nodeById(g);
    const at = (hex: string): number => ids.get(BigInt('0x' + hex))!;
    for (const id of e.sampleIds.strong) expect(a.reachable[at(id)]).toBe(1);
    for (const id of [...e.sampleIds.weakOnly, ...e.sampleIds.garbage]) expect(a.reachable[at(id)]).toBe(0);
    // the weak category itself is shown (reachable) though nothing below it is kept alive by it
    const weak = kids(g, g.rootIndex).find((c) => nameOf(g, c) === '[weak GC handles]')!;
    expect(a.reachable[weak]).toBe(1);
    expect(a.retainedSize[weak]).toBe(0);
    expect(a.reachableSize).toBe(a.retainedSize[g.rootIndex]);
  });

  it('readSnapshot detects and reads it with the same result', async () => {
    const direct = await readCfHeapLog(src, { select: '1' });
    const viaRegistry = await readSnapshot(src, { select: '1' });
    expect(viaRegistry.nodeCount).toBe(direct.nodeCount);
    expect(Array.from(viaRegistry.edgeTarget)).toEqual(Array.from(direct.edgeTarget));
  });
});

describe('detection', () => {
  it('recognises the documentation example and logs whose head was cut off', () => {
    expect(detectFormat(bytesOf('a 2 bubblecs.exe 763f9d2\nt 2 System.RuntimeType\n'))).toBe('cf-heaplog');
    const { text } = generateCfHeapLogText({ objects: 300, seed: 9 });
    const lines = text.split('\n');
    // starting mid-section, or at the end of one section and the start of the next
    expect(detectFormat(bytesOf(lines.slice(40).join('\n')))).toBe('cf-heaplog');
    const c = lines.findIndex((l) => l.startsWith('c '));
    expect(detectFormat(bytesOf(lines.slice(c - 1).join('\n')))).toBe('cf-heaplog');
    expect(detectFormat(bytesOf('r 1 1 0\r\nc x.exe 10\r\na 2 y.exe 20\r\nt 1 T\r\n'))).toBe('cf-heaplog');
  });

  it('does not take ordinary text for a log', () => {
    expect(detectFormat(bytesOf('a bad idea\nis a bad idea\n'))).toBe('unknown');
    expect(detectFormat(bytesOf('o 1 2\nc\nt\n'))).toBe('unknown');
  });
});

describe('plain object lines (the walker fast path) read exactly as the general path reads them', () => {
  it('same graph when every separator is a tab (which only the general path takes)', async () => {
    const { bytes } = generateCfHeapLogBytes({ objects: 3000, seed: 11, secondObjects: 50 });
    const text = new TextDecoder().decode(bytes);
    const tabbed = text.replace(/^o (.*)$/gm, (_, rest: string) => `o\t${rest.replaceAll(' ', '\t')}`);
    expect(tabbed).not.toBe(text);
    for (const select of ['0', '1']) {
      const fast = await readCfHeapLog(new MemoryByteSource(bytes, 'a.log'), { select });
      const slow = await readCfHeapLog(new MemoryByteSource(new TextEncoder().encode(tabbed), 'b.log'), { select });
      for (const k of ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags'] as const) expect(fast[k], k).toEqual(slow[k]);
      expect(fast.types.names).toEqual(slow.types.names);
      expect(fast.problems).toEqual(slow.problems);
    }
  });
});

describe('size hint (ReadOptions.sizeHint)', () => {
  it('is given once, before the graph is built, and covers its nodes and references', async () => {
    for (const seed of [3, 8]) {
      const { bytes } = generateCfHeapLogBytes({ objects: 3000, seed, secondObjects: 200 });
      for (const select of ['0', '1']) {
        const hints: [number, number][] = [];
        const g = await readCfHeapLog(new MemoryByteSource(bytes), { select, sizeHint: (n, e) => hints.push([n, e]) });
        expect(hints.length).toBe(1);
        expect(hints[0][0]).toBeGreaterThanOrEqual(g.nodeCount);
        expect(hints[0][1]).toBeGreaterThanOrEqual(g.edgeCount);
        expect(hints[0][0]).toBeLessThan(g.nodeCount * 1.01 + 100); // an estimate, not a wild one
      }
    }
  });
});
