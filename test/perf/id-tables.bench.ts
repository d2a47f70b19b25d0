import { pathToFileURL } from 'node:url';
import { IdColumn, enterDefinedIds, resolveIdsInPlace } from '../../shared/formats/cf-heaplog/id-resolution.js';
import { IdTable } from '../../shared/formats/cf-heaplog/id-table.js';
import { AddressMap } from '../../shared/formats/nettrace/address-map.js';
import { NEVER_CANCELLED } from '../../shared/util/cancellation.js';
import { mulberry32 as rng } from '../helpers/prng.js';

/**
 * The id tables on ordinary keys, for issue 13's keyed hashing (whose cost is the extra work per
 * hash): a CF log's unsorted-id path (enterDefinedIds + resolveIdsInPlace, as section-graph.ts
 * runs them when ids are not increasing) on `objects` shuffled 8-aligned 32-bit ids and 1.6 refs
 * per object; and the nettrace AddressMap interning then finding `addresses` 8-aligned
 * addresses in a 2 GiB heap. CPU ms of one run each, after one warm-up run.
 *
 *   npx tsx test/perf/id-tables.bench.ts [objects] [addresses]
 *
 * Measured on the 2-core VM (shared, load 8–24), fixed mix → keyed, runs alternating with a
 * build of the fixed mix: CF unsorted path 490–556 → 529–540 ms (4 pairs; hashing each id twice
 * for its bucket it was 587–620); AddressMap 241–391 → 370–490 ms. In-process, presized map:
 * intern 2M ~180 → ~240 ms, find ~120 → ~200 ms with the same probe totals: the tabulation's 8
 * loads lengthen each iteration, so fewer of the table's cache misses overlap (the hash alone
 * costs ~2 ns more). Neither path is on the benchmarks' ordinary inputs: increasing CF ids take
 * the table-free merge join, and a heap walk ranks objects in a bitmap; AddressMap sees roots,
 * types, addresses no object has, and the sparse index of scattered heaps.
 */
function cpuMs(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return Math.round((u.user + u.system) / 1000);
}

function cfInputs(objects: number): { defs: Uint32Array; refs: Uint32Array } {
  const r = rng(5);
  const defs = new Uint32Array(objects);
  for (let i = 0; i < objects; i++) defs[i] = 0x10000 + 8 * i;
  for (let i = objects - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    const t = defs[i];
    defs[i] = defs[j];
    defs[j] = t;
  }
  const refs = new Uint32Array(Math.floor(objects * 1.6));
  for (let i = 0; i < refs.length; i++) refs[i] = defs[Math.floor(r() * objects)] + (i % 97 === 0 ? 4 : 0); // ~1% dangling
  return { defs, refs };
}

function runCf(defs: Uint32Array, refs: Uint32Array): number {
  const d = new IdColumn(defs.length);
  for (let i = 0; i < defs.length; i++) d.push(defs[i], 0);
  const x = new IdColumn(refs.length);
  for (let i = 0; i < refs.length; i++) x.push(refs[i], 0);
  const cpu = process.cpuUsage();
  const table = new IdTable(Math.ceil((defs.length + 1024) / 0.7));
  enterDefinedIds(table, d, defs.length, NEVER_CANCELLED);
  resolveIdsInPlace(table, x, refs.length, defs.length, new IdColumn(1024), NEVER_CANCELLED);
  return cpuMs(cpu);
}

function runAddressMap(n: number): number {
  const r = rng(9);
  const keys = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const a = 0x7f00_0000_0000 + 8 * Math.floor(r() * 2 ** 28);
    keys[2 * i] = a >>> 0;
    keys[2 * i + 1] = Math.floor(a / 2 ** 32);
  }
  const cpu = process.cpuUsage();
  const m = new AddressMap(1024);
  for (let i = 0; i < n; i++) m.intern(keys[2 * i], keys[2 * i + 1]);
  let found = 0;
  for (let i = 0; i < n; i++) found += m.find(keys[2 * i], keys[2 * i + 1] ^ (i & 1)) >= 0 ? 1 : 0;
  if (found === 0) throw new Error('nothing found');
  return cpuMs(cpu);
}

export function benchIdTables(objects: number, addresses: number): Record<string, number> {
  const { defs, refs } = cfInputs(objects);
  runCf(defs, refs);
  runAddressMap(addresses);
  return { objects, cfUnsortedResolveCpuMs: runCf(defs, refs), addresses, addressMapCpuMs: runAddressMap(addresses) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(benchIdTables(Number(process.argv[2] ?? 5_000_000), Number(process.argv[3] ?? 2_000_000))));
}
