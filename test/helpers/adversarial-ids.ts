import { bulkEdge, bulkNode, bulkRootEdge, bulkType, CLR, gcEnd, gcStart } from './clr-event-payloads.js';
import { completeHashKey, HASH_KEY_WORDS } from '../../shared/util/keyed-hash.js';
import { NetTraceWriter } from './nettrace-writer.js';
import { mulberry32 as rng } from './prng.js';

/**
 * Hash-flooding inputs (issue 13): object ids and addresses crafted against the fixed hash
 * functions the readers' id tables used before they were keyed, so that every key lands in one
 * linear-probing run and n keys cost ~n²/2 probes. The formulas are those old functions,
 * inverted; they stay here (not in shared/) because they are only inputs now.
 *
 * Also the logs and traces made of them, generated in memory (never committed), and, beside each,
 * the same heap with ordinary ids, for comparing the two readings.
 */

/** x with imul(a, x) = 1 (mod 2^32), for odd a (Newton's iteration, 5 steps suffice for 32 bits). */
export function inverseOdd(a: number): number {
  let x = a;
  for (let i = 0; i < 5; i++) x = Math.imul(x, 2 - Math.imul(a, x));
  return x >>> 0;
}

/** 32-bit ids as (lo, 0) pairs, interleaved. */
export function widenIds(lo: Uint32Array): Uint32Array {
  const out = new Uint32Array(2 * lo.length);
  for (let i = 0; i < lo.length; i++) out[2 * i] = lo[i];
  return out;
}

/** A fixed hash key (shared/util/keyed-hash.ts) from a seed, so a failure reproduces (the readers' tables take random ones). */
export function seededHashKey(seed: number): Int32Array {
  const r = rng(seed);
  const key = new Int32Array(HASH_KEY_WORDS);
  for (let i = 0; i < key.length; i++) key[i] = Math.floor(r() * 2 ** 32) | 0;
  return completeHashKey(key);
}

/** The CF IdTable's old hash: Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> 0, top bits for the slot. */
export function oldCfIdHash(lo: number, hi: number): number {
  return Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> 0;
}

/**
 * n distinct 32-bit ids (hi 0) whose old CF hash is i for the i-th: all homes in the table's
 * first n >> (32 − bits) slots, i.e. one run of n keys for any table up to 2^32 / n slots.
 * What a device log (32-bit ids) could carry.
 */
export function cfColliding32(n: number): Uint32Array {
  const inv = inverseOdd(0x9e3779b1);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.imul(i, inv) >>> 0;
  return out;
}

/** n distinct 64-bit ids (lo, hi interleaved) with one and the same old CF hash, whatever the table size. */
export function cfColliding64(n: number, target = 0x2545f491): Uint32Array {
  const out = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const hi = i + 1;
    out[2 * i] = (target ^ Math.imul(hi, 0x85ebca6b)) >>> 0;
    out[2 * i + 1] = hi;
  }
  return out;
}

/** The nettrace AddressMap's old hash (used with `& mask`). */
export function oldAddressHash(lo: number, hi: number): number {
  let h = Math.imul(lo ^ (lo >>> 16), 0x45d9f3b) ^ Math.imul(hi, 0x27d4eb2d);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
}

/**
 * n distinct 8-aligned 64-bit addresses (lo, hi interleaved) with one and the same old
 * AddressMap hash: lo = 8·(i + 1), hi chosen so that the pre-mix value is `target` for all
 * (the mix after it is a bijection). Their high words are scattered over the whole 2^32, so a
 * heap walk of them takes DefinedAddressIndex's sparse form, which ranks them in an AddressMap.
 */
export function addressColliding(n: number, target = 0x51ed270b): Uint32Array {
  const inv = inverseOdd(0x27d4eb2d);
  const out = new Uint32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const lo = (8 * (i + 1)) >>> 0;
    out[2 * i] = lo;
    out[2 * i + 1] = Math.imul(target ^ Math.imul(lo ^ (lo >>> 16), 0x45d9f3b), inv) >>> 0;
  }
  return out;
}

const hex = (lo: number, hi: number): string => (hi === 0 ? lo.toString(16) : hi.toString(16) + lo.toString(16).padStart(8, '0'));

/**
 * A CF heap log of one section whose objects have the ids `ids` (lo, hi interleaved), written
 * in a shuffled order (so the reader cannot take its sorted, table-free way): each object
 * references `refsPer` others (by index, seeded), every 7th is a root, and every 50th reference
 * names an id no object has (one of `dangling`, lo/hi interleaved, when given).
 */
export function cfLogWithIds(ids: Uint32Array, opts: { seed?: number; refsPer?: number; dangling?: Uint32Array } = {}): string {
  const n = ids.length / 2;
  const r = rng(opts.seed ?? 1);
  const refsPer = opts.refsPer ?? 2;
  const dangling = opts.dangling ?? new Uint32Array(0);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const lines = ['a 2 flood.exe 0', 't 10 Flood.Node', 't 20 Flood.Leaf'];
  let d = 0;
  for (const i of order) {
    const parts = [`o ${hex(ids[2 * i], ids[2 * i + 1])} ${i % 3 === 0 ? 20 : 10} ${(8 + (i % 5) * 8).toString(16)}`];
    for (let k = 0; k < refsPer; k++) {
      if (dangling.length > 0 && r() < 0.02) {
        const j = d++ % (dangling.length / 2);
        parts.push(hex(dangling[2 * j], dangling[2 * j + 1]));
      } else {
        const j = Math.floor(r() * n);
        parts.push(hex(ids[2 * j], ids[2 * j + 1]));
      }
    }
    lines.push(parts.join(' '));
    if (i % 7 === 0) lines.push(`r ${hex(ids[2 * i], ids[2 * i + 1])} ${i % 4} 0`);
  }
  lines.push('c flood.exe 64', '');
  return lines.join('\n');
}

/** 64-bit words (lo, hi) as a bigint. */
const big = (lo: number, hi: number): bigint => (BigInt(hi) << 32n) | BigInt(lo);

/**
 * A heap-walk trace (pointer size 8) whose objects are at `addresses` (lo, hi interleaved), sent
 * in the given order: each references `refsPer` others (seeded), every 7th is a root, and every
 * 50th reference names one of `strays` (addresses no object has), when given.
 */
export function traceWithAddresses(addresses: Uint32Array, opts: { seed?: number; refsPer?: number; strays?: Uint32Array } = {}): Uint8Array {
  const n = addresses.length / 2;
  const r = rng(opts.seed ?? 1);
  const refsPer = opts.refsPer ?? 2;
  const strays = opts.strays ?? new Uint32Array(0);
  const w = new NetTraceWriter({ pointerSize: 8, eventsPerBlock: 200 });
  const id = { start: w.defineEvent(CLR, 1, { version: 2 }), end: w.defineEvent(CLR, 2, { version: 1 }), type: w.defineEvent(CLR, 15), root: w.defineEvent(CLR, 16), node: w.defineEvent(CLR, 18), edge: w.defineEvent(CLR, 19) };
  let ts = 10_000;
  const emit = (meta: number, payload: Uint8Array) => w.event(meta, payload, { timestamp: (ts += 10), threadId: 100 });
  const T_NODE = 0x7ffe_0000_0100;
  const T_LEAF = 0x7ffe_0000_0200;
  emit(id.type, bulkType([{ id: T_NODE, name: 'Flood.Node' }, { id: T_LEAF, name: 'Flood.Leaf' }]));
  emit(id.start, gcStart(5, 2, 1, 0));
  const roots = [];
  for (let i = 0; i < n; i += 7) roots.push({ address: big(addresses[2 * i], addresses[2 * i + 1]), kind: i % 3, flags: 0 });
  for (let i = 0; i < roots.length; i += 1000) emit(id.root, bulkRootEdge(i / 1000, roots.slice(i, i + 1000), 8));
  const targets: bigint[] = [];
  let s = 0;
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < refsPer; k++) {
      if (strays.length > 0 && r() < 0.02) {
        const j = s++ % (strays.length / 2);
        targets.push(big(strays[2 * j], strays[2 * j + 1]));
      } else {
        const j = Math.floor(r() * n);
        targets.push(big(addresses[2 * j], addresses[2 * j + 1]));
      }
    }
  }
  let index = 0;
  for (let i = 0; i < n; i += 100) {
    const nodes = [];
    for (let k = i; k < Math.min(n, i + 100); k++) nodes.push({ address: big(addresses[2 * k], addresses[2 * k + 1]), size: 24 + 8 * (k % 4), type: k % 3 === 0 ? T_LEAF : T_NODE, edges: refsPer });
    emit(id.node, bulkNode(index++, nodes, 8));
  }
  index = 0;
  for (let i = 0; i < targets.length; i += 150) emit(id.edge, bulkEdge(index++, targets.slice(i, i + 150), 8));
  emit(id.end, gcEnd(5, 2));
  w.sequencePoint(ts + 1);
  return w.finish({ endMarker: true });
}

/**
 * `keys` (lo, hi interleaved) mapped to ordinary addresses in the same order: the k-th smallest
 * key ↦ base + 32·k. Readings of the two must be equal but for the address column.
 */
export function orderPreservingOrdinary(keys: Uint32Array, base = 0x2000_0000_0000): Uint32Array {
  const n = keys.length / 2;
  const byKey = Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[2 * a + 1] - keys[2 * b + 1] || keys[2 * a] - keys[2 * b]);
  const out = new Uint32Array(2 * n);
  byKey.forEach((i, k) => {
    const v = base + 32 * k;
    out[2 * i] = v >>> 0;
    out[2 * i + 1] = Math.floor(v / 2 ** 32);
  });
  return out;
}
