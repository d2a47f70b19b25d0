import { describe, expect, it } from 'vitest';
import { decodeFsString, encodeFsString } from '../../../../../shared/formats/gcdump/fs-string.js';
import { ByteCursor } from '../../../../../shared/formats/gcdump/byte-cursor.js';
import { FormatError } from '../../../../../shared/errors.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { NEVER_CANCELLED } from '../../../../../shared/util/cancellation.js';
import { mulberry32 } from '../../../../helpers/random-graph.js';

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(' ');

function cursorOver(bytes: Uint8Array, chunk = 1 << 20): ByteCursor {
  return new ByteCursor(new MemoryByteSource(bytes, 'test.gcdump'), bytes.length, NEVER_CANCELLED, () => {}, chunk);
}

describe('fsstring (gcdump-format.md §2.1)', () => {
  it('encodes null as count -1 and "" as count 0', () => {
    expect(hex(encodeFsString(null))).toBe('ff ff ff ff');
    expect(hex(encodeFsString(''))).toBe('00 00 00 00');
    expect(decodeFsString(encodeFsString(null), 0)).toEqual({ value: null, end: 4 });
    expect(decodeFsString(encodeFsString(''), 0)).toEqual({ value: '', end: 4 });
  });

  it('encodes each UTF-16 code unit on its own, surrogate halves in 3 bytes each', () => {
    expect(hex(encodeFsString('A'))).toBe('01 00 00 00 41');
    expect(hex(encodeFsString('é'))).toBe('01 00 00 00 c3 a9');
    expect(hex(encodeFsString('€'))).toBe('01 00 00 00 e2 82 ac');
    // U+1F600 is the pair D83D DE00: count 2, six bytes (CESU-8, which UTF-8 decoders reject)
    expect(hex(encodeFsString('😀'))).toBe('02 00 00 00 ed a0 bd ed b8 80');
  });

  it('round-trips ASCII, Latin, CJK, pairs and lone surrogates', () => {
    const samples = ['GCHeapDump', 'System.Collections.Generic.Dictionary<System.String,System.Object>', 'Grüße ñ', '日本語の型', 'a😀b', '\ud800', 'x\udfffy', '\u0000\u007f\u0080\u07ff\u0800\uffff'];
    for (const s of samples) {
      const r = decodeFsString(encodeFsString(s), 0);
      expect(r.value).toBe(s);
      expect(r.end).toBe(encodeFsString(s).length);
    }
  });

  it('round-trips 2,000 seeded random strings of arbitrary code units', () => {
    const rnd = mulberry32(7);
    for (let i = 0; i < 2000; i++) {
      const len = Math.floor(rnd() * 40);
      let s = '';
      for (let j = 0; j < len; j++) {
        const kind = rnd();
        s += String.fromCharCode(kind < 0.4 ? Math.floor(rnd() * 0x80) : kind < 0.7 ? Math.floor(rnd() * 0x800) : Math.floor(rnd() * 0x10000));
      }
      expect(decodeFsString(encodeFsString(s), 0).value).toBe(s);
    }
  });

  it('streams a long string across tiny cursor windows', async () => {
    let s = '';
    for (let i = 0; i < 70_000; i++) s += String.fromCharCode(i % 3 === 0 ? 0x41 + (i % 26) : i % 3 === 1 ? 0x3b1 : 0x4e00 + (i % 500));
    const bytes = encodeFsString(s);
    const cur = cursorOver(bytes, 7);
    expect(await cur.readString()).toBe(s);
    expect(cur.pos).toBe(bytes.length);
  });

  it('reports a string cut short as format/truncated', async () => {
    const bytes = encodeFsString('hello world').subarray(0, 9);
    const cur = cursorOver(bytes);
    const err = await cur.readString().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FormatError);
    expect((err as FormatError).code).toBe('format/truncated');
  });

  it('rejects an impossible length as format/corrupt', async () => {
    const cur = cursorOver(Uint8Array.of(0xfe, 0xff, 0xff, 0xff, 0x41));
    const err = await cur.readString().catch((e: unknown) => e);
    expect((err as FormatError).code).toBe('format/corrupt');
  });
});
