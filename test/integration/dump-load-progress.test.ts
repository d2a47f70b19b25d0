import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileRegistry } from '../../electron/host/file-registry.js';
import { SessionManager } from '../../electron/host/session-manager.js';
import { devWorkerScripts } from '../../electron/workers/worker-scripts.js';
import type { HeapscopeEvents } from '../../shared/ipc/contract.js';
import { DumpStreamWriter } from '../helpers/dump-stream-writer.js';

/**
 * The app's load progress for a dump: the snapshot worker runs the dump helper (here an
 * executable stand-in named by $HEAPSCOPE_DUMP_READER, which worker threads inherit) and its
 * PROGRESS records become `load-progress` events (stage and phase "parse", done/total in heap
 * bytes), the events the tab's progress bar and status line follow.
 */
const dir = mkdtempSync(join(tmpdir(), 'heapscope-dump-load-progress-'));
const savedEnv = process.env.HEAPSCOPE_DUMP_READER;

afterAll(() => {
  if (savedEnv === undefined) delete process.env.HEAPSCOPE_DUMP_READER;
  else process.env.HEAPSCOPE_DUMP_READER = savedEnv;
  rmSync(dir, { recursive: true, force: true });
});

/** A helper that writes its stream in three parts 250 ms apart (the worker forwards progress at most every 100 ms). */
function slowHelper(): string {
  const w = new DumpStreamWriter();
  w.info('pointerSize', '8').type(0, 'Foo').progress(0, 8000);
  const a = w.finish().length;
  w.object(0x1000, 0, 24, 0, [[0x1018, 'next']]).progress(4000, 8000);
  const b = w.finish().length;
  w.object(0x1018, 0, 24, 0).progress(8000, 8000).root(1, 'App', 'Root', 0x1000);
  const all = Buffer.from(w.end().finish());
  const parts = [all.subarray(0, a), all.subarray(a, b), all.subarray(b)].map((p) => p.toString('base64'));
  const path = join(dir, 'helper');
  writeFileSync(
    path,
    `#!${process.execPath}\nconst parts = ${JSON.stringify(parts)};\n` +
      `let i = 0; const next = () => process.stdout.write(Buffer.from(parts[i++], 'base64'), () => { if (i < parts.length) setTimeout(next, 250); else process.exit(0); });\nnext();\n`,
    { mode: 0o755 },
  );
  return path;
}

describe.skipIf(process.platform === 'win32')('dump load progress in the app', () => {
  it('the snapshot worker turns the helper\'s PROGRESS records into load-progress events', async () => {
    process.env.HEAPSCOPE_DUMP_READER = slowHelper();
    const core = join(dir, 'core.4242');
    const h = new Uint8Array(64);
    h.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
    h[16] = 4; // ELF ET_CORE: detected as a process dump by content
    writeFileSync(core, h);
    const events: HeapscopeEvents['load-progress'][] = [];
    const mgr = new SessionManager({
      scripts: devWorkerScripts(),
      poolSize: 1,
      emit: (name, p) => {
        if (name === 'load-progress') events.push(p as HeapscopeEvents['load-progress']);
      },
    });
    try {
      const file = await new FileRegistry().register(core, 'path');
      const id = mgr.open(file, core).sessionId;
      const summary = await mgr.summary(id);
      expect(summary.nodeCount).toBe(5);
      const parse = events.filter((e) => e.sessionId === id && e.stage === 'parse' && e.phase === 'parse').map((e) => [e.done, e.total]);
      // The throttle always passes the first (done 0) and the last (done = total); the middle one
      // too unless a loaded machine delivers two parts within 100 ms.
      expect(parse[0]).toEqual([0, 8000]);
      expect(parse[parse.length - 1]).toEqual([8000, 8000]);
      expect(parse.filter(([d]) => d !== 0 && d !== 8000)).toEqual(parse.length === 3 ? [[4000, 8000]] : []);
      expect(parse.length).toBeGreaterThanOrEqual(2);
    } finally {
      await mgr.dispose();
    }
  }, 120_000);
});
