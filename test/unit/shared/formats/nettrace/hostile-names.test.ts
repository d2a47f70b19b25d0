import { describe, expect, it } from 'vitest';
import { readNetTraceSnapshot } from '../../../../../shared/formats/nettrace/read-nettrace-snapshot.js';
import { PayloadCursor } from '../../../../../shared/formats/nettrace/payload-cursor.js';
import { utf8 } from '../../../../../shared/formats/nettrace/v6-decoder.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { sampleHeap, writeHeapTrace } from '../../../../helpers/heap-trace.js';

/**
 * Hostile names in EventPipe traces (issue 13): a name may be as long as the 64 MiB block that
 * carries it; readers keep 16384 code units plus "…" (shared/formats/name-cap.ts) and count it.
 */

const utf16z = (s: string): Uint8Array => {
  const out = new Uint8Array(2 * s.length + 2);
  for (let i = 0; i < s.length; i++) {
    out[2 * i] = s.charCodeAt(i) & 0xff;
    out[2 * i + 1] = s.charCodeAt(i) >> 8;
  }
  return out;
};

describe('nettrace names are capped', () => {
  it('cuts a 4M-character type name, a 100K-character module path and static field name', async () => {
    const heap = sampleHeap();
    const app = heap.types.find((t) => t.name === 'App.Node')!;
    app.name = `App.${'N'.repeat(4 * 1024 * 1024)}`;
    heap.modules[0].path = `/${'p'.repeat(100_000)}`;
    heap.statics![0].field = `s_${'f'.repeat(100_000)}`;
    const g = await readNetTraceSnapshot(new MemoryByteSource(writeHeapTrace(heap), 'long.nettrace'));
    const cutModule = `/${'p'.repeat(16383)}…`;
    const dict = 'System.Collections.Generic.Dictionary<System.String,System.Object>';
    expect(g.types.names[4]).toBe(`App.${'N'.repeat(16380)}…`);
    expect([1, 2, 3, 5].map((t) => g.types.modules[t])).toEqual([cutModule, cutModule, cutModule, cutModule]);
    expect(g.types.names[8]).toBe(`[static var ${dict}.s_${'f'.repeat(16382)}…]`);
    const messages = g.problems.entries.map((p) => p.message);
    expect(messages).toContain('2 type or module name(s) longer than 16384 characters were cut and end in "…" (the longest had 4194308)');
    expect(messages).toContain('1 static field name(s) longer than 16384 characters were cut and end in "…" (the longest had 100002)');
  }, 30_000);

  it('cuts in the cursor without splitting a surrogate pair, and leaves a name at the cap alone', () => {
    const pair = '\u{1F600}';
    const c = new PayloadCursor(utf16z(`${'x'.repeat(16383)}${pair}tail`));
    expect(c.utf16z()).toBe(`${'x'.repeat(16383)}…`);
    expect([c.stringsCut, c.longestCut, c.remaining]).toEqual([1, 16389, 0]);
    const d = new PayloadCursor(utf16z('y'.repeat(16384)));
    expect(d.utf16z()).toBe('y'.repeat(16384));
    expect(d.stringsCut).toBe(0);
  });

  it('cuts v6 UTF-8 strings the same way', () => {
    const n = 40_000;
    const bytes = new Uint8Array(3 + n);
    bytes.set([(n & 0x7f) | 0x80, ((n >> 7) & 0x7f) | 0x80, n >> 14], 0); // LEB128 length
    bytes.fill(0x7a, 3);
    const c = new PayloadCursor(bytes);
    expect(utf8(c)).toBe(`${'z'.repeat(16384)}…`);
    expect(c.remaining).toBe(0);
  });
});
