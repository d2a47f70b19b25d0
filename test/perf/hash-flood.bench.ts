import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { readCfHeapLog } from '../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import { readNetTraceSnapshot } from '../../shared/formats/nettrace/read-nettrace-snapshot.js';
import { MemoryByteSource } from '../../shared/util/byte-source.js';
import { addressColliding, cfColliding32, cfColliding64, cfLogWithIds, orderPreservingOrdinary, traceWithAddresses, widenIds } from '../helpers/adversarial-ids.js';
import { mulberry32 as rng } from '../helpers/prng.js';

/**
 * Hash flooding (issue 13): reading a CF log whose object ids, and a heap-walk trace whose
 * BulkNode addresses, were crafted to collide in the id tables' old fixed hashes
 * (test/helpers/adversarial-ids.ts), against the same heaps with ordinary ids, at several sizes.
 * Quadratic tables show as CPU time growing 4× per doubling on the crafted inputs only.
 * Inputs are generated in memory first (untimed). Each figure is one read's CPU ms.
 *
 *   npx tsx test/perf/hash-flood.bench.ts [sizes, comma-separated] [cf|nettrace|both]
 *
 * Measured on the 2-core VM (issue 13, shared with other builds; CPU ms of one read). Before the
 * tables were keyed, at 10K / 20K / 40K / 80K objects: CF 32-bit crafted 197 / 610 / 2,464 /
 * 9,721, CF 64-bit crafted 194 / 602 / 2,420 / 9,377, nettrace crafted 287 / 994 / 3,766 /
 * 13,689 (ordinary ids 5–123 throughout). After, at 320K: CF crafted 88–110 (ordinary 104–107),
 * nettrace crafted 255 (ordinary 130, random scattered addresses 240: the sparse index's cost).
 */
function cpuMs(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return Math.round((u.user + u.system) / 1000);
}

function randomIds(n: number, wide: boolean, seed: number): Uint32Array {
  const r = rng(seed);
  const out = new Uint32Array(2 * n);
  const seen = new Set<string>();
  for (let i = 0; i < n; ) {
    const lo = Math.floor(r() * 2 ** 32) & ~7;
    const hi = wide ? 1 + Math.floor(r() * 0xffff) : 0;
    const k = `${hi}:${lo}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out[2 * i] = lo >>> 0;
    out[2 * i + 1] = hi;
    i++;
  }
  return out;
}

async function timeCf(ids: Uint32Array): Promise<number> {
  const bytes = new TextEncoder().encode(cfLogWithIds(ids, { seed: 3 }));
  const cpu = process.cpuUsage();
  await readCfHeapLog(new MemoryByteSource(bytes, 'flood.log'));
  return cpuMs(cpu);
}

async function timeTrace(addresses: Uint32Array): Promise<number> {
  const bytes = traceWithAddresses(addresses, { seed: 3 });
  const cpu = process.cpuUsage();
  await readNetTraceSnapshot(new MemoryByteSource(bytes, 'flood.nettrace'));
  return cpuMs(cpu);
}

export async function benchHashFlood(sizes: number[], which: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const n of sizes) {
    if (which !== 'nettrace') {
      out[`cf32 crafted ${n}`] = await timeCf(widenIds(cfColliding32(n)));
      out[`cf32 ordinary ${n}`] = await timeCf(randomIds(n, false, n));
      out[`cf64 crafted ${n}`] = await timeCf(cfColliding64(n));
      out[`cf64 ordinary ${n}`] = await timeCf(randomIds(n, true, n));
    }
    if (which !== 'cf') {
      const crafted = addressColliding(n);
      out[`nettrace crafted ${n}`] = await timeTrace(crafted);
      out[`nettrace ordinary ${n}`] = await timeTrace(orderPreservingOrdinary(crafted));
      out[`nettrace scattered ${n}`] = await timeTrace(randomIds(n, true, n));
    }
    console.error(JSON.stringify(out));
  }
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const sizes = (process.argv[2] ?? '20000,40000,80000').split(',').map(Number);
  const t = performance.now();
  console.log(JSON.stringify(await benchHashFlood(sizes, process.argv[3] ?? 'both'), null, 2));
  console.error(`total ${Math.round(performance.now() - t)} ms`);
}
