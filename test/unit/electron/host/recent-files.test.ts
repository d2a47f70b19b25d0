import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileRegistry } from '../../../../electron/host/file-registry.js';
import { createHeapscopeService } from '../../../../electron/host/heapscope-service.js';
import { RecentFiles } from '../../../../electron/host/recent-files.js';

// Recent files (issue 14 item 8): the list says when the user opened a file, not when the file was
// last written, and never lists a browser-mode upload (a temp copy deleted when the server stops).

const dir = mkdtempSync(join(tmpdir(), 'heapscope-recent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Where `heapscope serve` puts a dropped file: <tmp>/heapscope-serve-XXXXXX/uploads/<hex>/<name>. */
function uploadPath(name: string): string {
  const d = join(dir, 'heapscope-serve-Ab12Cd', 'uploads', '0123456789abcdef');
  mkdirSync(d, { recursive: true });
  const p = join(d, name);
  writeFileSync(p, 'x');
  return p;
}

describe('RecentFiles and uploads', () => {
  it('does not add an uploaded temp file, and drops one already listed', async () => {
    const cfg = join(dir, 'cfg-uploads');
    const r = new RecentFiles(cfg);
    const up = uploadPath('dropped.gcdump');
    await r.add('/x/kept.gcdump', 1);
    await r.add(up, 2);
    expect((await r.list()).map((f) => f.path)).toEqual(['/x/kept.gcdump']);
    // a list written by an older version that recorded an upload (since deleted with its server)
    writeFileSync(
      join(cfg, 'recent-files.json'),
      JSON.stringify({ version: 1, files: [{ path: join(dir, 'heapscope-serve-Zz9999', 'uploads', 'ff00', 'gone.gcdump'), openedAt: 5 }, { path: '/x/kept.gcdump', openedAt: 1 }] }),
    );
    expect(await r.list()).toEqual([{ path: '/x/kept.gcdump', openedAt: 1 }]);
    // a user's own file in a folder that merely looks similar is kept
    await r.add(join(dir, 'heapscope-serve-notes', 'mine.gcdump'), 3);
    expect((await r.list()).map((f) => f.path)).toEqual([join(dir, 'heapscope-serve-notes', 'mine.gcdump'), '/x/kept.gcdump']);
  });
});

describe('the recent list the UI gets', () => {
  it('carries when the file was opened, apart from its modification time', async () => {
    const file = join(dir, 'old.gcdump');
    writeFileSync(file, 'x');
    utimesSync(file, new Date(1_600_000_000_000), new Date(1_600_000_000_000)); // written in 2020
    const recent = new RecentFiles(join(dir, 'cfg-service'));
    await recent.add(file, 1_700_000_000_000); // opened in 2023
    const service = createHeapscopeService({
      version: 'test',
      shell: { mode: 'browser', canTypePath: true, exportTarget: async () => null },
      files: new FileRegistry(),
      recent,
      sessions: {} as never,
      monitors: {} as never,
      captures: {} as never,
      samplePath: null,
      commandLine: [],
      pendingOpens: [],
    });
    const lists = await service.listFiles({});
    expect(lists.recent.map((f) => [f.name, f.modifiedMs, f.openedAt])).toEqual([['old.gcdump', 1_600_000_000_000, 1_700_000_000_000]]);
  });
});
