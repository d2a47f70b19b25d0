import { execFileSync } from 'node:child_process';
import { closeSync, constants, copyFileSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FileToken } from '../../../../shared/ipc/contract.js';
import { FileByteSource } from '../../../../electron/files/file-byte-source.js';
import { FileRegistry, formatHint } from '../../../../electron/host/file-registry.js';
import { RecentFiles } from '../../../../electron/host/recent-files.js';
import { locateSample } from '../../../../electron/host/sample.js';

const dir = mkdtempSync(join(tmpdir(), 'heapscope-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SAMPLE = locateSample({ callerUrl: new URL('../../../../electron/host/sample.ts', import.meta.url).href });

describe('FileRegistry', () => {
  it('issues tokens only for readable snapshot files, stable per path', async () => {
    const reg = new FileRegistry();
    writeFileSync(join(dir, 'notes.txt'), 'hello world, not a heap log');
    await expect(reg.register(join(dir, 'notes.txt'), 'drop')).rejects.toMatchObject({ code: 'format/unknown' });
    await expect(reg.register(join(dir, 'missing.gcdump'), 'drop')).rejects.toMatchObject({ code: 'io/not-found' });
    await expect(reg.register(dir, 'drop')).rejects.toMatchObject({ code: 'io/not-a-file' });
    await expect(reg.register('a\0b', 'drop')).rejects.toMatchObject({ code: 'usage/bad-argument' });
    expect(() => reg.resolve('deadbeef' as FileToken)).toThrow(/unknown file token/);
    if (!SAMPLE) return;
    const copy = join(dir, 'copy.gcdump');
    copyFileSync(SAMPLE, copy);
    const a = await reg.register(copy, 'dialog');
    const b = await reg.register(copy, 'drop');
    expect(a.token).toBe(b.token);
    expect(a.token).toMatch(/^[0-9a-f]{32}$/);
    expect(reg.resolve(a.token)).toBe(copy);
    expect(b).toMatchObject({ name: 'copy.gcdump', source: 'drop', formatHint: 'gcdump', exists: true });
  });

  it.skipIf(process.platform === 'win32')('refuses a FIFO with no writer and a device at once (io/not-a-file), as the app opens files', { timeout: 15_000 }, async () => {
    const fifo = join(dir, 'pipe.gcdump');
    execFileSync('mkfifo', [fifo]);
    try {
      const reg = new FileRegistry();
      await expect(reg.register(fifo, 'drop')).rejects.toMatchObject({ code: 'io/not-a-file', message: `${fifo} is a FIFO (named pipe), not a snapshot file` });
      await expect(FileByteSource.open(fifo)).rejects.toMatchObject({ code: 'io/not-a-file' });
      if (existsSync('/dev/zero')) await expect(reg.register('/dev/zero', 'path')).rejects.toMatchObject({ code: 'io/not-a-file', message: '/dev/zero is a character device, not a snapshot file' });
    } finally {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)); // free a reader blocked by an old build
      } catch {
        // nobody is blocked on it
      }
    }
  });

  it('guesses a format hint from the extension (display only)', () => {
    expect([formatHint('a.GCDUMP'), formatHint('b.nettrace'), formatHint('c.log'), formatHint('d.bin')]).toEqual(['gcdump', 'nettrace', 'cf-heaplog', null]);
  });
});

describe('RecentFiles', () => {
  it('keeps most recent first, without duplicates, capped, and survives a corrupt file', async () => {
    const cfg = join(dir, 'cfg');
    const r = new RecentFiles(cfg, 3);
    await r.add('/x/a.gcdump', 1);
    await r.add('/x/b.gcdump', 2);
    await r.add('/x/a.gcdump', 3);
    await Promise.all([r.add('/x/c.gcdump', 4), r.add('/x/d.gcdump', 5)]);
    expect((await r.list()).map((f) => f.path)).toEqual(['/x/d.gcdump', '/x/c.gcdump', '/x/a.gcdump']);
    await r.remove('/x/c.gcdump');
    expect((await r.list()).map((f) => f.path)).toEqual(['/x/d.gcdump', '/x/a.gcdump']);
    writeFileSync(join(cfg, 'recent-files.json'), '{not json');
    expect(await r.list()).toEqual([]);
    await r.add('/x/e.gcdump', 6);
    expect((await r.list()).map((f) => f.path)).toEqual(['/x/e.gcdump']);
    await r.clear();
    expect(await r.list()).toEqual([]);
  });
});
