import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { runInspections } from '../../../../../shared/analysis/inspections/index.js';
import { readDumpStream } from '../../../../../shared/formats/dump/dump-graph.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';
import { mulberry32 } from '../../../../helpers/prng.js';

/**
 * The fill inspections' grouping against a naive oracle on random dump streams: objects of array
 * and collection types with random fill, random references (some objects unreachable), and the
 * rules recomputed here object by object from the generator's own lists. Collections come with
 * COLLECTION_FILL records (storage = the arrays in backing fields) or COLLECTION records (storage
 * as the record says, with a known or an unknown kind), mixed in one stream.
 */
const TYPES = ['App.Holder', 'App.A[]', 'App.B[]', 'System.Collections.Generic.List<App.A>', 'System.Collections.Generic.Dictionary<App.B, App.A>', 'System.Collections.Concurrent.ConcurrentQueue<App.A>'];
const ELEMENT = [0, 8, 4, 0, 0, 0];
const LENGTHS = [0, 0, 1, 15, 16, 17, 40, 100];

interface Obj {
  type: number;
  size: number;
  refs: [number, string][];
  length: number;
  filled: number;
}

async function check(seed: number): Promise<void> {
  const r = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const n = 2 + Math.floor(r() * 60);
  const objs: Obj[] = [];
  for (let i = 0; i < n; i++) {
    const type = i === 0 ? 0 : 1 + Math.floor(r() * 5);
    const length = type === 1 || type === 2 ? pick(LENGTHS) : type >= 3 ? (r() < 0.6 ? 0 : 1 + Math.floor(r() * 3)) : 0;
    const filled = type === 1 || type === 2 ? Math.floor(r() * (length + 1) * (r() < 0.5 ? 0.3 : 1)) : length;
    objs.push({ type, size: 24 + 8 * Math.floor(r() * 20), refs: [], length, filled: Math.min(filled, length) });
  }
  // capacity of collections: drawn now, used in the records
  const capacity = objs.map((o) => (o.type >= 3 ? pick([0, 4, 16]) : 0));
  // COLLECTION records: every ConcurrentQueue, half the others; storage as a helper would send it
  const record = objs.map((o) => o.type === 5 || (o.type >= 3 && r() < 0.5));
  const kind = objs.map((o) => (o.type === 5 ? pick([6, 200]) : o.type - 3));
  const storage = objs.map((_, i) => (capacity[i] > 0 ? 8 * Math.floor(r() * 100) : 0));
  for (let i = 1; i < n; i++) {
    if (r() < 0.15) continue; // unreachable
    const from = Math.floor(r() * i);
    const field = objs[from].type >= 3 && objs[i].type <= 2 && objs[i].type > 0 ? pick(['_items', '_entries', 'other']) : 'f';
    objs[from].refs.push([i, field]);
  }
  const w = new DumpStreamWriter();
  TYPES.forEach((t, i) => w.type(i, t));
  const addr = (i: number): number => 0x1000 * (i + 1);
  objs.forEach((o, i) => {
    w.object(addr(i), o.type, o.size, 2, o.refs.map(([t, f]) => [addr(t), f]));
    if (o.type === 1 || o.type === 2) w.arrayFill(addr(i), o.length, o.filled, ELEMENT[o.type]);
    else if (record[i]) w.collection(addr(i), kind[i], o.length, capacity[i], storage[i]);
    else if (o.type >= 3) w.collectionFill(addr(i), o.length, capacity[i]);
  });
  w.root(1, 'App', 'Holder', addr(0));
  const g = await readDumpStream(new MemoryByteSource(w.end().finish(), 'random.stream'));
  const res = runInspections(g, analyzeDominance(g));

  // Oracle: reachability by a plain walk, then the rules object by object.
  const reach = new Set<number>([0]);
  const todo = [0];
  while (todo.length) {
    for (const [t] of objs[todo.pop()!].refs) {
      if (reach.has(t)) continue;
      reach.add(t);
      todo.push(t);
    }
  }
  const sparse = new Map<string, { objects: number; shallowBytes: number; wasted: number; elements: number; filled: number }>();
  const empty = new Map<string, { objects: number; shallowBytes: number }>();
  const coll = new Map<string, { objects: number; shallowBytes: number; withCapacity: number; backingBytes: number }>();
  for (const i of [...reach].sort((a, b) => a - b)) {
    const o = objs[i];
    const name = TYPES[o.type];
    if (o.type === 1 || o.type === 2) {
      if (o.length === 0) {
        const e = empty.get(name) ?? { objects: 0, shallowBytes: 0 };
        empty.set(name, { objects: e.objects + 1, shallowBytes: e.shallowBytes + o.size });
      } else if (o.length >= 16 && o.filled * 4 <= o.length) {
        const s = sparse.get(name) ?? { objects: 0, shallowBytes: 0, wasted: 0, elements: 0, filled: 0 };
        sparse.set(name, { objects: s.objects + 1, shallowBytes: s.shallowBytes + o.size, wasted: s.wasted + (o.length - o.filled) * ELEMENT[o.type], elements: s.elements + o.length, filled: s.filled + o.filled });
      }
    } else if (o.type >= 3 && o.length === 0) {
      const c = coll.get(name) ?? { objects: 0, shallowBytes: 0, withCapacity: 0, backingBytes: 0 };
      const backing = record[i] ? storage[i] : capacity[i] > 0 ? o.refs.filter(([t, f]) => f !== 'other' && f !== 'f' && objs[t].type <= 2 && objs[t].type > 0).reduce((s, [t]) => s + objs[t].size, 0) : 0;
      coll.set(name, { objects: c.objects + 1, shallowBytes: c.shallowBytes + o.size, withCapacity: c.withCapacity + (capacity[i] > 0 ? 1 : 0), backingBytes: c.backingBytes + backing });
    }
  }
  const got = (kind: string) => new Map(res.findings.filter((f) => f.kind === kind).map((f) => [String(f.details.type), f]));
  const gotSparse = got('sparse-arrays');
  expect([...gotSparse.keys()].sort(), `seed ${seed}`).toEqual([...sparse.keys()].sort());
  for (const [name, s] of sparse) {
    const f = gotSparse.get(name)!;
    expect([f.objects, f.shallowBytes, f.details.wastedBytes, f.details.elements, f.details.nonDefaultElements], `seed ${seed} ${name}`).toEqual([s.objects, s.shallowBytes, s.wasted, s.elements, s.filled]);
  }
  const gotEmpty = got('empty-arrays');
  const emptyKept = [...empty].filter(([, e]) => e.objects >= 2);
  expect([...gotEmpty.keys()].sort(), `seed ${seed}`).toEqual(emptyKept.map(([k]) => k).sort());
  for (const [name, e] of emptyKept) expect([gotEmpty.get(name)!.objects, gotEmpty.get(name)!.shallowBytes], `seed ${seed} ${name}`).toEqual([e.objects, e.shallowBytes]);
  const gotColl = got('empty-collections');
  expect([...gotColl.keys()].sort(), `seed ${seed}`).toEqual([...coll.keys()].sort());
  for (const [name, c] of coll) {
    const f = gotColl.get(name)!;
    expect([f.objects, f.shallowBytes, f.details.withCapacity, f.details.backingBytes], `seed ${seed} ${name}`).toEqual([c.objects, c.shallowBytes, c.withCapacity, c.backingBytes]);
  }
}

describe('sparse/empty arrays and empty collections vs a naive oracle', () => {
  it('match on 300 random dump streams', async () => {
    for (let seed = 1; seed <= 300; seed++) await check(seed);
  });
});
