import { copyFileSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileEntry } from '../../../../shared/ipc/contract.js';
import { createBackend } from '../../../../electron/host/backend.js';
import { dispatch } from '../../../../electron/host/dispatch.js';
import { locateSample } from '../../../../electron/host/sample.js';
import { serveBrowserMode, type Serving } from '../../../../electron/server/serve.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { openWsPage } from '../../../helpers/ws-page.js';

// `heapscope serve FILE…` opens the named files as tabs: the first page that connects gets them
// from takePendingOpens (in command-line order), later requests arrive as `open-requested`.
// Real server on 127.0.0.1 and real WebSocket; copies of the bundled sample as the named files.
const SAMPLE = locateSample({ callerUrl: new URL('../../../../electron/host/sample.ts', import.meta.url).href });
let dir: string;
const running: Serving[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-named-'));
  if (!SAMPLE) throw new Error('electron/resources/sample.gcdump is missing');
  for (const n of ['first.gcdump', 'second.gcdump', 'third.gcdump', 'gone.gcdump']) copyFileSync(SAMPLE, join(dir, n));
  writeFileSync(join(dir, 'notes.txt'), 'not a snapshot');
});

afterAll(async () => {
  for (const s of running) await s.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(files: string[], opts: { listOnly?: boolean } = {}): Promise<{ serving: Serving; warnings: string }> {
  let warnings = '';
  const serving = await serveBrowserMode({
    files,
    listOnly: opts.listOnly,
    open: false,
    rendererDir: null,
    scripts: devWorkerScripts(),
    stdout: { write: () => undefined },
    stderr: { write: (s: string) => void (warnings += s) },
    configDir: join(dir, 'config'),
    poolSize: 1,
  });
  running.push(serving);
  return { serving, warnings };
}

/** A WebSocket page: calls and the events it received. */
async function page(serving: Serving) {
  const p = await openWsPage(serving.server.port, serving.server.token);
  return {
    events: p.events,
    ws: p.ws,
    async call<T>(method: string, arg: unknown): Promise<T> {
      const r = await p.call<T>(method, arg);
      if (!r.ok) throw Object.assign(new Error(r.error.message), { code: r.error.code });
      return r.value;
    },
  };
}

describe('serve FILE…: named files open as tabs', () => {
  it('queues the valid named files for the first page, in order, once each; later pages get none', async () => {
    const a = join(dir, 'first.gcdump');
    const b = join(dir, 'second.gcdump');
    const { serving, warnings } = await serve([a, join(dir, 'notes.txt'), b, a]);
    // one warning for the bad file (not a second one when it is not opened either)
    expect(warnings.split('\n').filter((l) => l.includes('not opening'))).toEqual([
      `warning: not opening ${join(dir, 'notes.txt')}: notes.txt is not a .gcdump, .nettrace or Compact Framework heap log`,
    ]);
    const p1 = await page(serving);
    const opens = await p1.call<FileEntry[]>('takePendingOpens', {});
    expect(opens.map((f) => [f.displayPath, f.source])).toEqual([
      [a, 'command-line'],
      [b, 'command-line'],
    ]);
    // still listed on the Welcome page
    const lists = await p1.call<{ commandLine: FileEntry[] }>('listFiles', {});
    expect(lists.commandLine.map((f) => f.name)).toEqual(['first.gcdump', 'second.gcdump', 'first.gcdump']);
    // a reload (or a second page) gets its tabs from its saved session, not these again
    const p2 = await page(serving);
    expect(await p2.call<FileEntry[]>('takePendingOpens', {})).toEqual([]);
    p1.ws.close();
    p2.ws.close();
  });

  it('--list-only lists the files without opening them', async () => {
    const { serving } = await serve([join(dir, 'third.gcdump')], { listOnly: true });
    const p = await page(serving);
    expect(await p.call<FileEntry[]>('takePendingOpens', {})).toEqual([]);
    expect((await p.call<{ commandLine: FileEntry[] }>('listFiles', {})).commandLine.map((f) => f.name)).toEqual(['third.gcdump']);
    p.ws.close();
  });

  it('a file asked for once the page listens reaches it as an open-requested event', async () => {
    const { serving } = await serve([]);
    const p = await page(serving);
    expect(await p.call<FileEntry[]>('takePendingOpens', {})).toEqual([]);
    await serving.backend.requestOpen(join(dir, 'third.gcdump'), 'open-file');
    await expect.poll(() => p.events.filter((e) => e.name === 'open-requested').length).toBe(1);
    expect(p.events.find((e) => e.name === 'open-requested')!.payload).toMatchObject({ file: { displayPath: join(dir, 'third.gcdump'), source: 'open-file' } });
    p.ws.close();
  });
});

describe("registerPath via 'restore' (a saved tab reopening its file)", () => {
  it('keeps the source of a path this process knows, is "path" for a new one, and fails coded for a gone file', async () => {
    const { serving } = await serve([]);
    const p = await page(serving);
    const uploaded = await serving.backend.files.register(join(dir, 'first.gcdump'), 'upload');
    const again = await p.call<FileEntry>('registerPath', { path: uploaded.displayPath, via: 'restore' });
    expect([again.token, again.source]).toEqual([uploaded.token, 'upload']);
    expect((await p.call<FileEntry>('registerPath', { path: join(dir, 'second.gcdump'), via: 'restore' })).source).toBe('path');
    unlinkSync(join(dir, 'gone.gcdump'));
    await expect(p.call('registerPath', { path: join(dir, 'gone.gcdump'), via: 'restore' })).rejects.toMatchObject({ code: 'io/not-found' });
    await expect(p.call('registerPath', { path: join(dir, 'notes.txt'), via: 'restore' })).rejects.toMatchObject({ code: 'format/unknown' });
    p.ws.close();
  });

  it('is accepted by the Electron shell, which refuses typed paths', async () => {
    const backend = createBackend({
      version: 'test',
      shell: { mode: 'electron', canTypePath: false, exportTarget: async () => null },
      configDir: join(dir, 'config-electron'),
      samplePath: null,
      scripts: devWorkerScripts(),
      poolSize: 1,
    });
    try {
      const path = join(dir, 'second.gcdump');
      // through the IPC door (method guards included), as the preload's calls arrive
      expect(await dispatch(backend.service, 'registerPath', { path, via: 'typed' })).toMatchObject({ ok: false, error: { code: 'usage/bad-argument' } });
      expect(await dispatch(backend.service, 'registerPath', { path, via: 'restore' })).toMatchObject({ ok: true, value: { displayPath: path, source: 'path', exists: true } });
    } finally {
      await backend.dispose();
    }
  });
});

describe('a page that goes away (reload, closed tab) frees what it opened', () => {
  it("closes the page's sessions when its socket closes, and leaves another page's alone", async () => {
    const { serving } = await serve([]);
    const reloaded = await page(serving);
    const other = await page(serving);
    const open = async (p: Awaited<ReturnType<typeof page>>, name: string) => {
      const f = await p.call<FileEntry>('registerPath', { path: join(dir, name), via: 'typed' });
      return (await p.call<{ sessionId: string }>('open', { fileToken: f.token })).sessionId;
    };
    const mine = [await open(reloaded, 'first.gcdump'), await open(reloaded, 'second.gcdump')];
    const closedByPage = await open(reloaded, 'third.gcdump');
    await reloaded.call('close', { sessionId: closedByPage });
    const theirs = await open(other, 'first.gcdump');
    const ids = async () => (await other.call<{ sessionId: string }[]>('listSessions', {})).map((s) => s.sessionId).sort();
    expect(await ids()).toEqual([...mine, theirs].sort());
    reloaded.ws.close();
    await expect.poll(ids).toEqual([theirs]);
    other.ws.close();
  });
});
