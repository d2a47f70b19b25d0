import { describe, expect, it } from 'vitest';
import { readCfHeapLog } from '../../../../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import { decodeText } from '../../../../../shared/formats/cf-heaplog/field-cursor.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { generateCfHeapLogText } from '../../../../tools/gen-cf-heaplog.js';

/**
 * Hostile names in CF heap logs (issue 13): a type or AppDomain name may fill a 64 MiB line;
 * readers keep 16384 code units plus "…" (shared/formats/name-cap.ts) and report it.
 */

describe('CF heap log names are capped', () => {
  it('cuts a 5M-character type name and a 100K-character AppDomain name, each with a problem', async () => {
    const { text } = generateCfHeapLogText({ objects: 5, seed: 1 });
    const long = text
      .replace('\nt fb2 System.Int32[]\n', `\nt fb2 ${'Q'.repeat(5_000_000)}\n`)
      .replace('a 2 bubblecs.exe 763f9d2', `a 2 ${'D'.repeat(100_000)} 763f9d2`);
    const g = await readCfHeapLog(new MemoryByteSource(new TextEncoder().encode(long), 'long.log'));
    expect(g.types.names).toContain(`${'Q'.repeat(16384)}…`);
    expect(Math.max(...g.types.names.map((n) => n.length))).toBe(16385);
    expect(g.metadata.processName).toBe(`${'D'.repeat(16384)}…`);
    const messages = g.problems.entries.map((p) => p.message);
    expect(messages).toContain('line 3: type 0xfb2: its name of 5000000 bytes was cut to 16384 characters and ends in "…"');
    expect(messages).toContain('line 1: the AppDomain name of 100000 bytes was cut to 16384 characters and ends in "…"');
  }, 30_000);

  it('counts characters, not bytes, and keeps a cut UTF-8 name UTF-8', () => {
    const bytes = (s: string) => new TextEncoder().encode(s);
    const e10k = bytes('é'.repeat(10_000)); // 20,000 bytes, 10,000 characters: not cut
    expect(decodeText(e10k, 0, e10k.length)).toBe('é'.repeat(10_000));
    const cut = { count: 0 };
    const e40k = bytes('é'.repeat(40_000));
    expect(decodeText(e40k, 0, e40k.length, cut)).toBe(`${'é'.repeat(16384)}…`);
    const odd = bytes(`a${'€'.repeat(30_000)}`); // 3-byte sequences: the 4 × cap window ends inside one
    expect(decodeText(odd, 0, odd.length, cut)).toBe(`a${'€'.repeat(16383)}…`);
    expect(cut.count).toBe(2);
  });
});
