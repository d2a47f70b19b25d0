import { describe, expect, it } from 'vitest';
import { readCfHeapLog, readCfHeapLogFragment, type CfHeapLogReadOptions } from '../../../../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import type { StretchReader } from '../../../../../shared/formats/read-options.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { PROBLEM_CAP } from '../../../../../shared/graph/problems.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { generateCfHeapLogText } from '../../../../tools/gen-cf-heaplog.js';
import { mulberry32 } from '../../../../helpers/prng.js';

// A split read (the second part read as a fragment, as another thread would, then joined) must
// give exactly the sequential read's graph: every column, type and problem, for every split point.

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The fragment read in-process: the same code the worker runs, without the transport. */
function inProcess(bytes: Uint8Array, used: { calls: number; fail?: boolean }): StretchReader {
  return (req, token) => {
    used.calls++;
    const result = used.fail
      ? Promise.reject(new Error('helper thread died'))
      : readCfHeapLogFragment(new MemoryByteSource(bytes), req.from, { chunkSize: req.chunkSize, maxLineBytes: req.maxLineBytes, token });
    return { result, cancel() {} };
  };
}

/** Line starts (after each '\n'), the split points a reader may choose. */
function lineStarts(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < bytes.length - 1; i++) if (bytes[i] === 10) out.push(i + 1);
  return out;
}

function firstDifference(a: HeapGraph, b: HeapGraph): string | null {
  if (a.nodeCount !== b.nodeCount || a.edgeCount !== b.edgeCount || a.rootIndex !== b.rootIndex) return `shape ${a.nodeCount}/${a.edgeCount} vs ${b.nodeCount}/${b.edgeCount}`;
  for (const key of ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags', 'generation'] as const) {
    const x = a[key];
    const y = b[key];
    if (x.length !== y.length) return `${key} length`;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return `${key}[${i}]: ${x[i]} vs ${y[i]}`;
  }
  const s = (v: unknown) => JSON.stringify(v);
  if (s(a.types) !== s(b.types)) return `types ${s(a.types)} vs ${s(b.types)}`;
  if (s(a.problems) !== s(b.problems)) return `problems ${s(a.problems)} vs ${s(b.problems)}`;
  if (s(a.metadata) !== s(b.metadata)) return `metadata ${s(a.metadata)} vs ${s(b.metadata)}`;
  return a.totalSize === b.totalSize ? null : 'totalSize';
}

async function expectSplitsMatch(text: string, opts: CfHeapLogReadOptions = {}, points?: number[]): Promise<number> {
  const bytes = encode(text);
  const want = await readCfHeapLog(new MemoryByteSource(bytes), opts);
  const used = { calls: 0 };
  let joined = 0;
  for (const at of points ?? lineStarts(bytes)) {
    const before = used.calls;
    const got = await readCfHeapLog(new MemoryByteSource(bytes), { ...opts, splitAt: at, stretchReader: inProcess(bytes, used) });
    expect(used.calls).toBe(before + 1);
    const diff = firstDifference(got, want);
    if (diff) throw new Error(`split at byte ${at} (line ${text.slice(0, at).split('\n').length}): ${diff}`);
    joined++;
  }
  return joined;
}

/** Every record kind and problem, in both halves and across the middle. */
const MESSY = [
  'o 10 1 8 20', // before any section: an unnamed section of its own
  'a 2 first.exe 100',
  't 1 System.Object',
  'o 100 1 c 200 300',
  'o 200 2 10 100 ffffff', // type 2 named later; a dangling reference
  'r 100 4 0 2', // static of type 2, before its `t`
  'q 1 2', // unknown record
  'o 300 3 zz', // malformed size
  '',
  'o 300 1 8', // the same id again: dropped, reported
  'r 200 3 2', // weak handle
  'r 400 2 1', // pinned, finalizer queue, object never described
  't 2 App.Holder',
  'o 400 5 18 100 200 1000000000', // a 64-bit reference
  't 5', // type without a name
  'o 500 6 20',
  't 2 App.Again', // named twice
  'r 500 4 0 7', // static of a type never described
  'o 480 1 4', // ids stop increasing here
  't 6 App.Late',
  'r 123456789abc 0 0',
  'o 600 1 4 500 480 600',
  'c first.exe 200',
  'a 2 second.exe 300',
  't 1 Other',
  'o 10 1 4 20',
  'o 20 1 4 10',
  'c second.exe',
  'o 30 1 4', // after the last section
  'o 40 1 4 3', // cut off: no newline
].join('\n');

describe('CF heap log read in two parts (section-fragment.ts)', () => {
  it('every split point of a log with every record kind and problem gives the sequential graph', async () => {
    expect(await expectSplitsMatch(MESSY)).toBe(MESSY.split('\n').length - 1);
    await expectSplitsMatch(MESSY, { select: '1' });
    await expectSplitsMatch(MESSY, { select: 'second.exe' });
    await expectSplitsMatch(MESSY, { select: '3' });
  });

  it('increasing ids across 2^32 (the sorted-ids resolution with two partitions), with and without an id past 2^43', async () => {
    for (const far of [false, true]) {
      const r = mulberry32(far ? 2 : 1);
      const ids = Array.from({ length: 60 }, (_, i) => 0xffffff00 + 0x18 * i);
      const hex = (v: number) => v.toString(16);
      const lines = ['a 2 app.exe', 't 1 T'];
      ids.forEach((id, i) => {
        const refs = Array.from({ length: Math.floor(r() * 4) }, () => (r() < 0.1 ? id + 4 : ids[Math.floor(r() * ids.length)])); // some dangling
        if (far && i === 40) refs.push(2 ** 44 + 8);
        lines.push(`o ${hex(id)} 1 10${refs.map((x) => ' ' + hex(x)).join('')}`);
        if (i % 9 === 0) lines.push(`r ${hex(ids[(i * 7) % ids.length])} 1 0`);
      });
      lines.push('c app.exe');
      expect(await expectSplitsMatch(lines.join('\n'))).toBe(lines.length - 1);
    }
  });

  it('lines split across read chunks on both sides of the split', async () => {
    await expectSplitsMatch(MESSY, { chunkSize: 7 });
    await expectSplitsMatch(MESSY, { chunkSize: 1, maxLineBytes: 20 });
  });

  it('generated logs (two AppDomains, forward types, statics, pinned and weak roots): every split point', { timeout: 60_000 }, async () => {
    for (const seed of [1, 2, 3]) {
      const { text } = generateCfHeapLogText({ objects: 120, seed, secondObjects: 40 });
      await expectSplitsMatch(text);
      await expectSplitsMatch(text, { select: '1' }, lineStarts(encode(text)).filter((_, i) => i % 7 === 0));
    }
  });

  it('damaged logs: random byte flips, 40 split points each', { timeout: 60_000 }, async () => {
    const { text } = generateCfHeapLogText({ objects: 200, seed: 5 });
    for (let seed = 1; seed <= 8; seed++) {
      const r = mulberry32(seed);
      const bytes = encode(text);
      for (let k = 0; k < 12; k++) bytes[Math.floor(r() * bytes.length)] = [10, 32, 0x61, 0x63, 0x6f, 0x7a, 0x39][Math.floor(r() * 7)];
      const damaged = new TextDecoder().decode(bytes);
      const starts = lineStarts(encode(damaged));
      await expectSplitsMatch(damaged, {}, Array.from({ length: 40 }, () => starts[Math.floor(r() * starts.length)]));
    }
  });

  it('problems past the message cap are kept and counted as a sequential read keeps them', async () => {
    const lines = ['a 2 app.exe'];
    for (let i = 0; i < 3 * PROBLEM_CAP; i++) lines.push(i % 3 === 0 ? `o ${(i + 16).toString(16)} 1 4 ffff${i}` : `x ${i}`);
    lines.push('t 1 T', 'c app.exe');
    const text = lines.join('\n');
    const starts = lineStarts(encode(text));
    await expectSplitsMatch(text, {}, [starts[5], starts[PROBLEM_CAP - 3], starts[PROBLEM_CAP + 40], starts[starts.length - 3]]);
  });

  it('a failed helper thread: the stretch is read here, same graph', async () => {
    const bytes = encode(MESSY);
    const want = await readCfHeapLog(new MemoryByteSource(bytes));
    const used = { calls: 0, fail: true };
    for (const at of lineStarts(bytes)) {
      const got = await readCfHeapLog(new MemoryByteSource(bytes), { splitAt: at, stretchReader: inProcess(bytes, used) });
      expect(firstDifference(got, want)).toBeNull();
    }
  });

  it('no second thread for a small file unless a split point is given', async () => {
    const bytes = encode(MESSY);
    const used = { calls: 0 };
    await readCfHeapLog(new MemoryByteSource(bytes), { stretchReader: inProcess(bytes, used) });
    expect(used.calls).toBe(0);
  });
});

describe('sharedMemory', () => {
  it('puts the graph columns in SharedArrayBuffers (no copy when a host shares them), same values', async () => {
    const { text } = generateCfHeapLogText({ objects: 300, seed: 9 });
    const plain = await readCfHeapLog(new MemoryByteSource(encode(text)));
    const shared = await readCfHeapLog(new MemoryByteSource(encode(text)), { sharedMemory: true });
    expect(firstDifference(shared, plain)).toBeNull();
    for (const key of ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags'] as const) {
      expect(shared[key].buffer instanceof SharedArrayBuffer, key).toBe(true);
      expect(plain[key].buffer instanceof SharedArrayBuffer, key).toBe(false);
    }
  });

  it('keeps the same values when shared columns outgrow their first capacity and when a fragment joins them', async () => {
    // lines of ~12 bytes: the reader's capacity guess (one object per 32 bytes) is too small
    const lines = ['a 2 tiny', 't 1 T'];
    for (let i = 1; i <= 6000; i++) lines.push(`o ${(16 * i).toString(16)} 1 c${i > 1 ? ` ${(16 * (i - 1)).toString(16)}` : ''}`);
    lines.push('r 10 1 0', 'c tiny');
    const bytes = encode(lines.join('\n') + '\n');
    const plain = await readCfHeapLog(new MemoryByteSource(bytes));
    expect(plain.nodeCount).toBeGreaterThan(6000);
    const grown = await readCfHeapLog(new MemoryByteSource(bytes), { sharedMemory: true });
    expect(firstDifference(grown, plain)).toBeNull();
    expect(grown.edgeTarget.buffer instanceof SharedArrayBuffer).toBe(true);
    const used = { calls: 0 };
    const split = await readCfHeapLog(new MemoryByteSource(bytes), { sharedMemory: true, stretchReader: inProcess(bytes, used), splitAt: bytes.indexOf(10, bytes.length >> 1) + 1 });
    expect(used.calls).toBe(1);
    expect(firstDifference(split, plain)).toBeNull();
    expect(split.firstEdge.buffer instanceof SharedArrayBuffer).toBe(true);
  });
});
