import { describe, expect, it } from 'vitest';
import { decodeDumpStream } from '../../../../../shared/formats/dump/dump-stream.js';
import { StreamStrings } from '../../../../../shared/formats/dump/stream-strings.js';
import { decodeUtf8 } from '../../../../../shared/formats/nettrace/v6-decoder.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';

// The dump stream's strings pooled as UTF-8 (stream-strings.ts): each id decodes to what the
// general decoder makes of its bytes, and charLength (the STRING_VALUE check's UTF-16 length,
// taken without a string for ASCII) is that text's length, also for malformed UTF-8.

describe('StreamStrings', () => {
  const samples: Uint8Array[] = [
    Buffer.from('plain ascii', 'utf8'),
    Buffer.from('', 'utf8'),
    Buffer.from('héllo ✓ 😀 日本', 'utf8'),
    Buffer.from('x'.repeat(5000), 'utf8'),
    Uint8Array.from([0x61, 0xc3, 0x28, 0xff, 0xe2, 0x82, 0x62]), // malformed sequences → U+FFFD
    Uint8Array.from([0xf0, 0x9f, 0x98]), // a cut-off 4-byte sequence
  ];

  it('decodes each id as the general decoder does; charLength is the text length', () => {
    const s = new StreamStrings(16); // tiny first capacity: the pool grows while adding
    for (const b of samples) s.add(b);
    expect(s.length).toBe(samples.length);
    samples.forEach((b, id) => {
      const want = decodeUtf8(b, 0, b.length);
      expect(s.get(id), `id ${id}`).toBe(want);
      expect(s.charLength(id), `id ${id}`).toBe(want.length);
      expect(Buffer.from(s.bytes().subarray(s.start(id), s.end(id))).equals(Buffer.from(b))).toBe(true);
    });
    expect(s.get(2)).toBe('héllo ✓ 😀 日本');
    expect(s.charLength(2)).toBe(13);
  });

  it('hands the graph its bytes without the pool\'s doubling slack', () => {
    const s = new StreamStrings(16);
    const total = samples.reduce((n, b) => n + b.length, 0);
    for (const b of samples) s.add(b);
    const bytes = s.bytes();
    expect(bytes.length).toBe(total);
    expect(bytes.buffer.byteLength).toBeLessThanOrEqual(total + total / 8);
    expect(s.get(2)).toBe('héllo ✓ 😀 日本'); // the pool itself still reads after
  });

  it('a non-ASCII value text longer (in UTF-16 chars) than its length is still refused', async () => {
    const w = new DumpStreamWriter();
    w.type(0, 'System.String');
    w.object(0x1000, 0, 40, 0).stringValue(0x1000, 0, 'é😀é', 3); // 4 UTF-16 chars, 7 bytes
    await expect(decodeDumpStream(new MemoryByteSource(w.end().finish()))).rejects.toThrow('string value 0 has 4 chars of text but a length of 3');
  });
});
