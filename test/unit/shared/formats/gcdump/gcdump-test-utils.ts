import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { readGcdump } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { fixturePath } from '../../../../helpers/fixtures.js';

/** Test helpers for the gcdump tests (not a test file itself). */

export const GCDUMP_FIXTURES = [
  'perfview_test1',
  'perfview_test2',
  'mono_android_20231108_150515_31024',
  'mono_android_20231108_150644_31024',
  'monovm_ios_sample',
] as const;

export function fixtureBytes(name: string): Uint8Array | null {
  const p = fixturePath(`gcdump/${name}.gcdump`);
  return p ? new Uint8Array(readFileSync(p)) : null;
}

const cache = new Map<string, HeapGraph>();

/** Read a fixture once per test file. */
export async function loadFixture(name: string): Promise<HeapGraph> {
  const hit = cache.get(name);
  if (hit) return hit;
  const bytes = fixtureBytes(name);
  if (!bytes) throw new Error(`fixture ${name} missing`);
  const g = await readGcdump(new MemoryByteSource(bytes, `${name}.gcdump`));
  cache.set(name, g);
  return g;
}

export function concat(chunks: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const c of chunks) n += c.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export function children(g: HeapGraph, node: number): number[] {
  return Array.from(g.edgeTarget.subarray(g.firstEdge[node], g.firstEdge[node + 1]));
}

/** "name count" of each child of the root, in file order. */
export function rootChildren(g: HeapGraph): string[] {
  return children(g, g.rootIndex).map((c) => `${g.types.names[g.nodeType[c]]} ${g.firstEdge[c + 1] - g.firstEdge[c]}`);
}

export function countNodes(g: HeapGraph, pred: (node: number) => boolean): number {
  let n = 0;
  for (let i = 0; i < g.nodeCount; i++) if (pred(i)) n++;
  return n;
}

/** Type with the most bytes: [name, objects, bytes] (an independent oracle: a plain loop). */
export function topTypesByBytes(g: HeapGraph, k: number): [string, number, number][] {
  const count = new Float64Array(g.types.count);
  const bytes = new Float64Array(g.types.count);
  for (let i = 0; i < g.nodeCount; i++) {
    count[g.nodeType[i]]++;
    bytes[g.nodeType[i]] += g.selfSize[i];
  }
  return Array.from({ length: g.types.count }, (_, t) => t)
    .sort((a, b) => bytes[b] - bytes[a])
    .slice(0, k)
    .map((t) => [g.types.names[t], count[t], bytes[t]]);
}

const COLUMNS = ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags', 'generation'] as const;

/** Exact equality of everything a .gcdump carries, column by column (fast compare, readable failure). */
export function expectSameGraph(actual: HeapGraph, expected: HeapGraph, opts: { flagsMask?: number; metadata?: boolean } = {}): void {
  expect(actual.nodeCount).toBe(expected.nodeCount);
  expect(actual.edgeCount).toBe(expected.edgeCount);
  expect(actual.rootIndex).toBe(expected.rootIndex);
  expect(actual.totalSize).toBe(expected.totalSize);
  for (const col of COLUMNS) {
    const a = actual[col];
    let b = expected[col];
    if (col === 'nodeFlags' && opts.flagsMask !== undefined) {
      const m = opts.flagsMask;
      b = (b as Uint8Array).map((f) => f & m);
      const am = (a as Uint8Array).map((f) => f & m);
      expect(firstDifference(am, b), col).toBe(-1);
      continue;
    }
    expect(firstDifference(a, b), col).toBe(-1);
  }
  expect(actual.types.names).toEqual(expected.types.names);
  expect(actual.types.modules).toEqual(expected.types.modules);
  expect(Array.from(actual.types.sizes)).toEqual(Array.from(expected.types.sizes));
  expect(actual.hasGenerationData).toBe(expected.hasGenerationData);
  if (opts.metadata !== false) expect(actual.metadata).toEqual(expected.metadata);
}

function firstDifference(a: ArrayLike<number | bigint>, b: ArrayLike<number | bigint>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}
