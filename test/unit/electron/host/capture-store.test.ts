import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CaptureStore } from '../../../../electron/host/capture-store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-captures-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A file with a modification time `ageS` seconds in the past. */
function put(name: string, ageS: number): string {
  const p = join(dir, name);
  writeFileSync(p, 'x');
  const t = Date.now() / 1000 - ageS;
  utimesSync(p, t, t);
  return p;
}

describe('CaptureStore', () => {
  it('names captures <process>_YYYYMMDD_HHMMSS_<pid>.gcdump and never reuses a name', async () => {
    const store = new CaptureStore(join(dir, 'c'));
    const when = new Date(2024, 0, 2, 3, 4, 5);
    const a = await store.newPath(4242, 'My App.dll', when);
    expect(a).toBe(join(dir, 'c', 'My_App_20240102_030405_4242.gcdump'));
    writeFileSync(a, 'x');
    expect(await store.newPath(4242, 'My App.dll', when)).toBe(join(dir, 'c', 'My_App_20240102_030405_4242-2.gcdump'));
    writeFileSync(join(dir, 'c', 'My_App_20240102_030405_4242-2.gcdump.partial'), 'x'); // being written
    expect(await store.newPath(4242, 'My App.dll', when)).toBe(join(dir, 'c', 'My_App_20240102_030405_4242-3.gcdump'));
    expect(await store.newPath(7, null, when)).toBe(join(dir, 'c', '20240102_030405_7.gcdump'));
    expect(await store.newPath(7, '../../etc/passwd', when)).toBe(join(dir, 'c', '.._.._etc_passwd_20240102_030405_7.gcdump'));
  });

  it('keeps the newest captures, never deletes one in use, and clears stale .partial files', async () => {
    const store = new CaptureStore(dir, 2);
    const newest = put('a.gcdump', 10);
    const second = put('b.gcdump', 20);
    const third = put('c.gcdump', 30);
    const inUse = put('d.gcdump', 40);
    const oldest = put('e.gcdump', 50);
    const freshPartial = put('f.gcdump.partial', 60);
    const stalePartial = put('g.gcdump.partial', 7200);
    const other = put('notes.txt', 9000);
    const deleted = await store.prune(new Set([inUse]));
    expect(deleted.sort()).toEqual([third, oldest, stalePartial].sort());
    for (const p of [newest, second, inUse, freshPartial, other]) expect(existsSync(p), p).toBe(true);
    expect(await new CaptureStore(join(dir, 'missing')).prune(new Set())).toEqual([]);
  });
});
