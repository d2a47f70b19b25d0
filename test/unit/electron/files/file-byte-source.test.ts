import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileByteSource } from '../../../../electron/files/file-byte-source.js';

let dir: string;
let path: string;
const bytes = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 7 + 3) & 0xff);
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-file-source-'));
  path = join(dir, 'data.bin');
  writeFileSync(path, bytes);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('FileByteSource.read', () => {
  it('reads a range, clipped at the end of the file', async () => {
    const src = await FileByteSource.open(path);
    try {
      expect(Array.from(await src.read(100, 50))).toEqual(Array.from(bytes.subarray(100, 150)));
      expect(Array.from(await src.read(9_990, 50))).toEqual(Array.from(bytes.subarray(9_990)));
    } finally {
      await src.close();
    }
  });

  it('fills a buffer handed back for reuse when it is big enough, and allocates otherwise', async () => {
    const src = await FileByteSource.open(path);
    try {
      const first = await src.read(0, 4096);
      const second = await src.read(4096, 4096, first);
      expect(second.buffer).toBe(first.buffer); // the same memory, refilled
      expect(Array.from(second)).toEqual(Array.from(bytes.subarray(4096, 8192)));
      const tail = await src.read(8192, 4096, second); // the file's last 1,808 bytes: a shorter view
      expect(tail.buffer).toBe(first.buffer);
      expect(Array.from(tail)).toEqual(Array.from(bytes.subarray(8192)));
      const small = new Uint8Array(10);
      const fresh = await src.read(0, 4096, small);
      expect(fresh.buffer).not.toBe(small.buffer);
      expect(Array.from(fresh)).toEqual(Array.from(bytes.subarray(0, 4096)));
    } finally {
      await src.close();
    }
  });
});
