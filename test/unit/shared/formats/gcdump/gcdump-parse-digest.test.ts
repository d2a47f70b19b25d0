import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeBlobPart, type BlobPartReader } from '../../../../../shared/formats/gcdump/blob-split.js';
import { readGcdump, type GcdumpReadOptions } from '../../../../../shared/formats/gcdump/gcdump-reader.js';
import { writeGcdump } from '../../../../../shared/formats/gcdump/gcdump-writer.js';
import type { StretchReader } from '../../../../../shared/formats/read-options.js';
import { HeapGraphBuilder } from '../../../../../shared/graph/heap-graph-builder.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { emptyMetadata } from '../../../../../shared/graph/metadata.js';
import { MemoryByteSource, type ByteSource } from '../../../../../shared/util/byte-source.js';
import { FileByteSource } from '../../../../../electron/files/file-byte-source.js';
import { fixturePath } from '../../../../helpers/fixtures.js';
import { mulberry32, randomGraph } from '../../../../helpers/random-graph.js';
import { concat, fixtureBytes, GCDUMP_FIXTURES } from './gcdump-test-utils.js';

// Issue 17 item 3 made the node blob decode faster (records straight into the builder's edge
// pool). The graph must stay what the reader gave before, bit for bit: these digests (SHA-256 of
// every column's bytes, of the type table and of the problem list) were taken with the reader
// before that change, on every real fixture and on synthetic files that take every path: records
// in and out of index order, undefined nodes, dangling references, unknown types, tiny windows,
// one thread and a split read. Any change to a column or a problem's text fails here. The problems
// are hashed as a multiset since records out of index order went straight to the builder (issue 17:
// found in file order, no longer replayed in node order); those digests were taken again with the
// reader before that change, with this hash.

function sha(data: ArrayBufferView | string): string {
  const h = createHash('sha256');
  h.update(typeof data === 'string' ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  return h.digest('hex').slice(0, 16);
}

function digest(g: HeapGraph): string {
  const parts = [`n=${g.nodeCount} e=${g.edgeCount} root=${g.rootIndex} total=${g.totalSize}`];
  for (const col of ['nodeType', 'selfSize', 'firstEdge', 'edgeTarget', 'address', 'nodeFlags', 'generation'] as const) parts.push(`${col}:${sha(g[col])}`);
  parts.push(`types:${sha(JSON.stringify([g.types.names, g.types.modules, Array.from(g.types.sizes)]))}`);
  // the spelled-out problems as a multiset: out-of-order records are decoded in file order, so
  // their problems are found in that order (the node order before issue 17's record-order decode);
  // past the cap (PROBLEM_CAP) which ones are spelled out depends on that order, so only their number
  const { entries, counts, total } = g.problems;
  const spelled = total <= entries.length ? entries.map((p) => JSON.stringify(p)).sort() : entries.length;
  parts.push(`problems:${sha(JSON.stringify([spelled, counts]))}`);
  return parts.join(' ');
}

/** A second thread run in-process, on a structured clone of the request as a worker gets it. */
function inProcess(bytes: Uint8Array, copying: boolean): StretchReader {
  const reader = (() => {
    throw new Error('not a CF log');
  }) as unknown as StretchReader;
  const blob: BlobPartReader = (req, token) => ({ result: decodeBlobPart(copying ? new CopyingByteSource(bytes, 'x') : new MemoryByteSource(bytes, 'x'), structuredClone(req), token), cancel: () => {} });
  reader.gcdumpBlob = blob;
  return reader;
}

/**
 * A source that copies, as a file does: it fills the caller's `reuse` buffer when given one (the
 * reader then decodes windows, offsets and addresses in place), else a fresh buffer.
 */
class CopyingByteSource implements ByteSource {
  readonly size: number;
  constructor(
    private readonly bytes: Uint8Array,
    readonly name: string,
  ) {
    this.size = bytes.length;
  }
  async read(offset: number, length: number, reuse?: Uint8Array): Promise<Uint8Array> {
    const len = Math.max(0, Math.min(length, this.size - offset));
    const buf = reuse && reuse.length >= len ? reuse.subarray(0, len) : new Uint8Array(len);
    buf.set(this.bytes.subarray(offset, offset + len));
    return buf;
  }
}

async function read(bytes: Uint8Array, opts: GcdumpReadOptions = {}, split = false, copying = false): Promise<HeapGraph> {
  const source = copying ? new CopyingByteSource(bytes, 'x.gcdump') : new MemoryByteSource(bytes, 'x.gcdump');
  return readGcdump(source, split ? { ...opts, stretchReader: inProcess(bytes, copying) } : opts);
}

/** `g` with every 7th object undescribed (offset-0 records in both decode paths). */
function withHoles(g: HeapGraph): HeapGraph {
  const b = new HeapGraphBuilder();
  for (let t = 1; t < g.types.count; t++) b.addType(g.types.names[t], g.types.modules[t], g.types.sizes[t]);
  b.createNodes(g.nodeCount);
  for (let v = 0; v < g.nodeCount; v++) {
    if (v > 4 && v % 7 === 3) continue;
    b.setNode(v, g.nodeType[v], g.selfSize[v], g.edgeTarget, g.firstEdge[v], g.firstEdge[v + 1] - g.firstEdge[v]);
  }
  b.setRoot(g.rootIndex);
  return b.finish(emptyMetadata('synthetic'));
}

/** Damage a writer cannot refuse: references past the last node (some wrap negative) and types past the table. */
function damaged(g: HeapGraph): HeapGraph {
  for (let k = 3; k < g.edgeCount; k += 97) g.edgeTarget[k] = k % 2 ? g.nodeCount + k : 0xfffffff0 - k;
  for (let v = 5; v < g.nodeCount; v += 61) g.nodeType[v] = g.types.count + (v % 3);
  return g;
}

/** Seeds 1–3 have undefined nodes; seed 4 has none (a split part then goes to the builder in bulk when clean). */
async function synthetic(seed: number, shuffle: boolean, damage: boolean): Promise<Uint8Array> {
  const whole = randomGraph(seed, { nodes: 1500, types: 7, avgDegree: 5 });
  const g = seed < 4 ? withHoles(whole) : whole;
  const rnd = mulberry32(seed * 31);
  const recordOrder = shuffle ? Uint32Array.from({ length: g.nodeCount }, (_, i) => i).sort(() => rnd() - 0.5) : undefined;
  return concat(writeGcdump(damage ? damaged(g) : g, { recordOrder }));
}

/** Key: seed, records shuffled, damaged. */
const SYNTHETIC: Record<string, string> = {
  "1 false false": "n=1500 e=6537 root=0 total=63372 nodeType:082d19eeca44eea6 selfSize:7c97a95491dcc9ea firstEdge:079eaa69ad54136d edgeTarget:1389af2c030681be address:ff6698a6e831ffcf nodeFlags:0447e21a2ec93273 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:1bfd3f23e2a10d07",
  "1 false true": "n=1500 e=6469 root=0 total=63372 nodeType:c0d1a06033a311b0 selfSize:7c97a95491dcc9ea firstEdge:5766a5d533e00367 edgeTarget:081975b4c59421bc address:ff6698a6e831ffcf nodeFlags:0447e21a2ec93273 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:74b0bd7c143f8994",
  "1 true false": "n=1500 e=6537 root=0 total=63372 nodeType:082d19eeca44eea6 selfSize:7c97a95491dcc9ea firstEdge:079eaa69ad54136d edgeTarget:1389af2c030681be address:ff6698a6e831ffcf nodeFlags:0447e21a2ec93273 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:1bfd3f23e2a10d07",
  "1 true true": "n=1500 e=6469 root=0 total=63372 nodeType:c0d1a06033a311b0 selfSize:7c97a95491dcc9ea firstEdge:5766a5d533e00367 edgeTarget:081975b4c59421bc address:ff6698a6e831ffcf nodeFlags:0447e21a2ec93273 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:74b0bd7c143f8994",
  "2 false false": "n=1500 e=6319 root=0 total=64890 nodeType:864803791b84d60a selfSize:181459f72da14087 firstEdge:cd01a79a6b47b3e7 edgeTarget:a39e509c26f4f187 address:ff6698a6e831ffcf nodeFlags:df02a71a7ef0eeb4 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:1bfd3f23e2a10d07",
  "2 false true": "n=1500 e=6253 root=0 total=64890 nodeType:9afcd0de39bd1c72 selfSize:181459f72da14087 firstEdge:e7747639d32d50ab edgeTarget:4a0bdca5a31adaa5 address:ff6698a6e831ffcf nodeFlags:df02a71a7ef0eeb4 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:6a808e8c0978a653",
  "2 true false": "n=1500 e=6319 root=0 total=64890 nodeType:864803791b84d60a selfSize:181459f72da14087 firstEdge:cd01a79a6b47b3e7 edgeTarget:a39e509c26f4f187 address:ff6698a6e831ffcf nodeFlags:df02a71a7ef0eeb4 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:1bfd3f23e2a10d07",
  "2 true true": "n=1500 e=6253 root=0 total=64890 nodeType:9afcd0de39bd1c72 selfSize:181459f72da14087 firstEdge:e7747639d32d50ab edgeTarget:4a0bdca5a31adaa5 address:ff6698a6e831ffcf nodeFlags:df02a71a7ef0eeb4 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:6a808e8c0978a653",
  "3 false false": "n=1500 e=6531 root=0 total=62923 nodeType:c3acf19350c48315 selfSize:ac2011451390f71e firstEdge:7fa4f2cc11b307e2 edgeTarget:2d3d0dea4de445b9 address:ff6698a6e831ffcf nodeFlags:df02a71a7ef0eeb4 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:1bfd3f23e2a10d07",
  "3 false true": "n=1500 e=6463 root=0 total=62923 nodeType:07caa0c51db67c57 selfSize:ac2011451390f71e firstEdge:b80a625b93d70255 edgeTarget:b4f1fe7a49ad3ed9 address:ff6698a6e831ffcf nodeFlags:df02a71a7ef0eeb4 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:74b0bd7c143f8994",
  "3 true false": "n=1500 e=6531 root=0 total=62923 nodeType:c3acf19350c48315 selfSize:ac2011451390f71e firstEdge:7fa4f2cc11b307e2 edgeTarget:2d3d0dea4de445b9 address:ff6698a6e831ffcf nodeFlags:df02a71a7ef0eeb4 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:1bfd3f23e2a10d07",
  "3 true true": "n=1500 e=6463 root=0 total=62923 nodeType:07caa0c51db67c57 selfSize:ac2011451390f71e firstEdge:b80a625b93d70255 edgeTarget:b4f1fe7a49ad3ed9 address:ff6698a6e831ffcf nodeFlags:df02a71a7ef0eeb4 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:74b0bd7c143f8994",
  "4 false false": "n=1500 e=7561 root=0 total=75773 nodeType:4cf9699127bf2f16 selfSize:944c8656664f413e firstEdge:04bf4ef08fefba40 edgeTarget:d3deaa80ec15c76e address:ff6698a6e831ffcf nodeFlags:47e29c4ad0c5e378 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:5eed25f9aa1c6813",
  "4 false true": "n=1500 e=7483 root=0 total=75773 nodeType:993aaccc272c1513 selfSize:944c8656664f413e firstEdge:de55afa3d719f07a edgeTarget:171dcd3f5cfacc89 address:ff6698a6e831ffcf nodeFlags:47e29c4ad0c5e378 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:5ce2c20ecaeb7db2",
  "4 true false": "n=1500 e=7561 root=0 total=75773 nodeType:4cf9699127bf2f16 selfSize:944c8656664f413e firstEdge:04bf4ef08fefba40 edgeTarget:d3deaa80ec15c76e address:ff6698a6e831ffcf nodeFlags:47e29c4ad0c5e378 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:5eed25f9aa1c6813",
  "4 true true": "n=1500 e=7483 root=0 total=75773 nodeType:993aaccc272c1513 selfSize:944c8656664f413e firstEdge:de55afa3d719f07a edgeTarget:171dcd3f5cfacc89 address:ff6698a6e831ffcf nodeFlags:47e29c4ad0c5e378 generation:c50a3df7f41d3066 types:c20d6bb2bc4aba2f problems:5ce2c20ecaeb7db2",
};
const FIXTURES: Record<string, string> = {
  "mono_android_20231108_150515_31024": "n=27570 e=49775 root=0 total=1780688 nodeType:300531e61377d391 selfSize:fa607bfca469a435 firstEdge:e5e9ba2ceb63248f edgeTarget:dbe4f260bdd83921 address:41b190d57108abff nodeFlags:d04e2cd6b087a415 generation:10ed802d91870446 types:3c5f33fd07e70663 problems:5eed25f9aa1c6813",
  "mono_android_20231108_150644_31024": "n=27914 e=50262 root=0 total=1814480 nodeType:a6200f8b1541f608 selfSize:37d9bce8712e142b firstEdge:670eed8212cc1676 edgeTarget:ef93b894cbf05edf address:68a8412a11afd57f nodeFlags:121dd4554e2aa35b generation:691bfe324a1f7385 types:56c365260722b8d5 problems:5eed25f9aa1c6813",
  "monovm_ios_sample": "n=24062 e=32349 root=0 total=1309128 nodeType:3adff3bf0c2e8318 selfSize:33c0356fa116f241 firstEdge:26e62876ad51d9e3 edgeTarget:e1d451ff4fdbadf4 address:1d99370a49be8648 nodeFlags:ab99a72d8ee81092 generation:6dc5d5dbee913958 types:254f1077d94bf3a7 problems:5eed25f9aa1c6813",
  "perfview_test1": "n=6482 e=15020 root=0 total=1009270 nodeType:0939db2dd5c49da9 selfSize:5f34c4b4576c3102 firstEdge:49e56bde7e5c6a2e edgeTarget:cb07ae1b7f92fb58 address:e86938b9132f8193 nodeFlags:67b1e7aa0c4958f7 generation:6c8d9196f6265141 types:d671d86987ee1b27 problems:5eed25f9aa1c6813",
  "perfview_test2": "n=140391 e=235137 root=0 total=4147128 nodeType:218bbae18b939439 selfSize:8c60b225b99042db firstEdge:25ca7f308df3d071 edgeTarget:2bfcb477fcdb7f88 address:f309b2af24374cd8 nodeFlags:6c0483f864b999f4 generation:073ddaa179931571 types:2c9c73dbf693ee43 problems:eb75b0a926229175",
};

describe('gcdump parse digests (unchanged by the decode speed-up)', () => {
  it.each(GCDUMP_FIXTURES.map((name) => [name]))('real fixture %s, one thread and split', async (name) => {
    const bytes = fixtureBytes(name);
    if (!bytes) return; // fixtures missing: gcdump-fixtures.test.ts reports it
    const one = digest(await read(bytes));
    expect(digest(await read(bytes, { splitMinBlobBytes: 1 }, true))).toBe(one);
    expect(digest(await read(bytes, { chunkSize: 4096 }))).toBe(one);
    for (const chunkSize of [4096, undefined]) expect(digest(await read(bytes, { chunkSize }, false, true)), `copying source, chunk ${chunkSize}`).toBe(one);
    const file = await FileByteSource.open(fixturePath(`gcdump/${name}.gcdump`)!);
    try {
      expect(digest(await readGcdump(file, { chunkSize: 8192 })), 'file').toBe(one);
    } finally {
      await file.close();
    }
    expect(one).toBe(FIXTURES[name]);
  });

  for (const shuffle of [false, true]) {
    for (const damage of [false, true]) {
      it(`synthetic records ${shuffle ? 'out of' : 'in'} index order${damage ? ', damaged' : ''}`, async () => {
        for (const seed of [1, 2, 3, 4]) {
          const bytes = await synthetic(seed, shuffle, damage);
          const key = `${seed} ${shuffle} ${damage}`;
          const g = await read(bytes);
          if (damage) expect([(g.problems.counts['dangling-reference'] ?? 0) > 20, (g.problems.counts['unknown-type'] ?? 0) > 10]).toEqual([true, true]);
          const one = digest(g);
          for (const chunkSize of [16, 1024]) {
            expect(digest(await read(bytes, { chunkSize })), `chunk ${chunkSize}`).toBe(one);
            expect(digest(await read(bytes, { chunkSize }, false, true)), `copying source, chunk ${chunkSize}`).toBe(one);
          }
          for (const at of [0, 700, 1400]) {
            expect(digest(await read(bytes, { splitAtVisit: at, chunkSize: 64 }, true)), `split at ${at}`).toBe(one);
            expect(digest(await read(bytes, { splitAtVisit: at, chunkSize: 64 }, true, true)), `copying source, split at ${at}`).toBe(one);
          }
          expect(one).toBe(SYNTHETIC[key]);
        }
      });
    }
  }
});
