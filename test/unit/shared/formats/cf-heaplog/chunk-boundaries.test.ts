import { describe, expect, it } from 'vitest';
import { readCfHeapLog } from '../../../../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import { LineBlocks } from '../../../../../shared/formats/cf-heaplog/line-blocks.js';
import type { HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { MemoryByteSource, type ByteSource } from '../../../../../shared/util/byte-source.js';
import { generateCfHeapLogText } from '../../../../tools/gen-cf-heaplog.js';

const bytesOf = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Copies as a file does, into the caller's spent chunk when offered one (ByteSource.read's `reuse`). */
class CopyingSource implements ByteSource {
  readonly name = 'copying';
  readonly size: number;
  reused = 0;
  constructor(private readonly bytes: Uint8Array) {
    this.size = bytes.length;
  }
  async read(offset: number, length: number, reuse?: Uint8Array): Promise<Uint8Array> {
    const len = Math.max(0, Math.min(length, this.size - offset));
    const out = reuse && reuse.length >= len ? (this.reused++, reuse.subarray(0, len)) : new Uint8Array(len);
    out.set(this.bytes.subarray(offset, offset + len));
    return out;
  }
}

/** Everything a graph holds, as plain data, so two graphs compare with one toEqual. */
function dump(g: HeapGraph): unknown {
  return {
    nodeCount: g.nodeCount,
    nodeType: Array.from(g.nodeType),
    selfSize: Array.from(g.selfSize),
    firstEdge: Array.from(g.firstEdge),
    edgeTarget: Array.from(g.edgeTarget),
    address: Array.from(g.address, (a) => a.toString(16)),
    nodeFlags: Array.from(g.nodeFlags),
    types: g.types.names,
    typeSizes: Array.from(g.types.sizes),
    problems: g.problems,
    extra: g.metadata.extra,
  };
}

/** All lines LineBlocks hands out, in order, with whether the last one was unterminated. */
async function linesOf(bytes: Uint8Array, chunk: number, copying = false): Promise<string[]> {
  const b = new LineBlocks(copying ? new CopyingSource(bytes) : new MemoryByteSource(bytes), chunk);
  const out: string[] = [];
  while (await b.next()) {
    let text = '';
    for (let i = b.start; i < b.end; i++) text += String.fromCharCode(b.buf[i]);
    const parts = text.split('\n');
    if (parts.at(-1) === '') parts.pop();
    else if (!b.unterminated) throw new Error('a block ended inside a line');
    out.push(...parts.map((p, i) => (b.unterminated && i === parts.length - 1 ? `${p}<EOF>` : p)));
  }
  return out;
}

describe('LineBlocks', () => {
  it.each([1, 2, 3, 7, 64])('splits lines identically with %i-byte chunks', async (chunk) => {
    const text = 'a 2 x\n\nlong line here with words\r\nq\nlast';
    expect(await linesOf(bytesOf(text), chunk)).toEqual(['a 2 x', '', 'long line here with words\r', 'q', 'last<EOF>']);
    expect(await linesOf(bytesOf(text + '\n'), chunk)).toEqual(['a 2 x', '', 'long line here with words\r', 'q', 'last']);
    // the same from a source that reads into the previous chunk's buffer
    expect(await linesOf(bytesOf(text), chunk, true)).toEqual(['a 2 x', '', 'long line here with words\r', 'q', 'last<EOF>']);
  });

  it('handles an empty source and a source of only newlines', async () => {
    expect(await linesOf(new Uint8Array(0), 4)).toEqual([]);
    expect(await linesOf(bytesOf('\n\n\n'), 2)).toEqual(['', '', '']);
  });
});

describe('chunk boundaries do not change the graph', () => {
  const { text } = generateCfHeapLogText({ objects: 400, seed: 5 });

  it.each(['0', '1'])('section %s: 1, 7, 4096-byte and default chunks give identical graphs', async (select) => {
    const src = new MemoryByteSource(bytesOf(text));
    const whole = dump(await readCfHeapLog(src, { select }));
    for (const chunkSize of [1, 7, 4096]) expect(dump(await readCfHeapLog(src, { select, chunkSize }))).toEqual(whole);
    // a source that overwrites the previous chunk's buffer (as files do): no view may outlive its chunk
    for (const chunkSize of [1, 7, 4096]) {
      const copying = new CopyingSource(bytesOf(text));
      expect(dump(await readCfHeapLog(copying, { select, chunkSize }))).toEqual(whole);
      expect(copying.reused).toBeGreaterThan(0);
    }
  });

  it('CRLF line endings and trailing blanks read the same as LF', async () => {
    const lf = dump(await readCfHeapLog(new MemoryByteSource(bytesOf(text))));
    const crlf = text.replace(/\n/g, ' \t\r\n');
    for (const chunkSize of [1, 7, 4096]) expect(dump(await readCfHeapLog(new MemoryByteSource(bytesOf(crlf)), { chunkSize }))).toEqual(lf);
  });

  it('problems in a damaged log are the same for every chunk size', async () => {
    const damaged = text.slice(0, Math.floor(text.length * 0.6)).replace(/\no /g, (m, at: number) => (at % 7 === 0 ? '\no zz ' : m));
    const src = new MemoryByteSource(bytesOf(damaged));
    const whole = dump(await readCfHeapLog(src));
    expect((whole as { problems: { total: number } }).problems.total).toBeGreaterThan(0);
    for (const chunkSize of [1, 7, 4096]) expect(dump(await readCfHeapLog(src, { chunkSize }))).toEqual(whole);
    for (const chunkSize of [1, 7, 4096]) expect(dump(await readCfHeapLog(new CopyingSource(bytesOf(damaged)), { chunkSize }))).toEqual(whole);
  });
});
