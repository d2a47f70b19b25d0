import { describe, expect, it } from 'vitest';
import { decodeDumpStream, type DumpRecords } from '../../../../../shared/formats/dump/dump-stream.js';
import { MemoryByteSource, type ByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';
import { mulberry32 } from '../../../../helpers/prng.js';

/**
 * The decoder's cursor (stream-cursor.ts) copies each chunk behind the unread tail of the last one
 * in a reused array. A pipe hands out chunks of any length, cut anywhere in a record: the same
 * stream read in random small and large chunks (fresh arrays each, as a pipe gives them) must
 * decode to exactly what one piece gives, including a string far longer than any chunk.
 */
class ChunkedSource implements ByteSource {
  readonly size = -1;
  readonly name = 'chunked';
  reads = 0;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly rnd: () => number,
  ) {}
  async read(offset: number, length: number): Promise<Uint8Array> {
    this.reads++;
    const r = this.rnd();
    const want = r < 0.6 ? 1 + Math.floor(this.rnd() * 40) : r < 0.995 ? 1 + Math.floor(this.rnd() * 3000) : 200_000;
    const n = Math.min(want, length, this.bytes.length - offset);
    return this.bytes.slice(offset, offset + Math.max(n, 0));
  }
}

function plain(r: DumpRecords): unknown {
  return {
    strings: Array.from({ length: r.strings.length }, (_, i) => r.strings.get(i)),
    types: r.typeNames,
    objects: [...r.objectAddress, ...r.objectType, ...r.objectSize, ...r.objectGeneration],
    refs: [...r.referenceEnd, ...r.referenceTarget, ...r.referenceField],
    roots: [...r.rootKind, ...r.rootObject],
    values: [...r.objectStringValue, ...r.stringValueText, ...r.stringValueLength],
  };
}

describe('dump stream read in random chunks', () => {
  it('decodes 20 random streams exactly as in one piece', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const rnd = mulberry32(seed);
      const w = new DumpStreamWriter();
      w.info('pointerSize', '8').type(0, 'System.String').type(1, 'Node');
      const n = 200 + Math.floor(rnd() * 300);
      let value = 0;
      for (let i = 0; i < n; i++) {
        const addr = 0x7f00_0000_1000n + BigInt(i) * 64n;
        if (i % 3 === 0) {
          const text = i === 99 ? 'é'.repeat(150_000) : `s${i}-${'x'.repeat(Math.floor(rnd() * 50))}`;
          w.object(addr, 0, 24 + 2 * text.length, 0).stringValue(addr, value++, text, text.length);
        } else {
          const refs: [bigint, string | null][] = [];
          for (let k = Math.floor(rnd() * 4); k > 0; k--) refs.push([0x7f00_0000_1000n + BigInt(Math.floor(rnd() * n)) * 64n, rnd() < 0.5 ? 'next' : null]);
          w.object(addr, 1, 32, 2, refs);
        }
      }
      w.root(3, null, null, 0x7f00_0000_1000n);
      const bytes = w.end().finish();
      const whole = await decodeDumpStream(new MemoryByteSource(bytes));
      const source = new ChunkedSource(bytes, rnd);
      const chunked = await decodeDumpStream(source);
      expect(plain(chunked), `seed ${seed}`).toEqual(plain(whole));
      expect(chunked.objectCount).toBe(n);
      expect(source.reads).toBeGreaterThan(10);
    }
  });
});
