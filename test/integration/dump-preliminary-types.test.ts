import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDumpFile } from '../../electron/dump-reader/helper-process.js';
import { FileRegistry } from '../../electron/host/file-registry.js';
import { SessionManager } from '../../electron/host/session-manager.js';
import { devWorkerScripts } from '../../electron/workers/worker-scripts.js';
import type { TypeHistogram } from '../../shared/formats/dump/type-histogram.js';
import type { FileEntry, HeapscopeEvents, SessionId, TypeRow } from '../../shared/ipc/contract.js';
import { PreliminaryTypes } from '../../shared/session/preliminary-types.js';
import { SnapshotSession } from '../../shared/session/snapshot-session.js';
import { fakeCore, standInDumpReader } from '../helpers/stand-in-dump-reader.js';
import { dumpDotnetApp, processDumpSkip } from '../helpers/process-dump.js';

/**
 * A process dump's type rows before its graph (issue 15, time to first rows): the snapshot worker
 * asks the helper for its type histogram, main announces `session-preliminary`, and `typeRows`
 * answers from it while the session is still loading; `session-ready` replaces it, with the same
 * rows. Stand-in helpers ($HEAPSCOPE_DUMP_READER, inherited by worker threads) hold the stream
 * after the histogram until the test lets them go on (or die), so the order is deterministic.
 */
const dir = mkdtempSync(join(tmpdir(), 'heapscope-dump-preliminary-'));
const savedEnv = process.env.HEAPSCOPE_DUMP_READER;

afterAll(() => {
  if (savedEnv === undefined) delete process.env.HEAPSCOPE_DUMP_READER;
  else process.env.HEAPSCOPE_DUMP_READER = savedEnv;
  rmSync(dir, { recursive: true, force: true });
});

const standIn = (name: string, crash: boolean) => standInDumpReader(dir, name, crash);
const core = (name: string) => fakeCore(dir, name);

type Seen = { name: string; payload: unknown };
const ALL = { sort: { key: 'shallowSize' as const, dir: 'desc' as const }, start: 0, end: 1000 };
const figures = (rows: TypeRow[]) => rows.map((r) => ({ typeIndex: r.typeIndex, type: r.type, module: r.module, count: r.count, shallowSize: r.shallowSize }));

function manager(events: Seen[]): SessionManager {
  return new SessionManager({ scripts: devWorkerScripts(), poolSize: 1, emit: (name, payload) => name !== 'busy' && name !== 'load-progress' && events.push({ name, payload }) });
}

async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 3000 && !what(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(what()).toBe(true);
}

describe.skipIf(process.platform === 'win32')('a dump\'s type rows before its graph', () => {
  it('typeRows answers from the histogram while the session loads, with the rows the parsed session gives', async () => {
    const s = standIn('helper-ok', false);
    process.env.HEAPSCOPE_DUMP_READER = s.helper;
    const path = core('core.1');
    const events: Seen[] = [];
    const mgr = manager(events);
    try {
      const id = mgr.open(await new FileRegistry().register(path, 'path'), path).sessionId;
      await until(() => events.some((e) => e.name === 'session-preliminary'));
      const pre = events.find((e) => e.name === 'session-preliminary')!.payload as HeapscopeEvents['session-preliminary'];
      expect(pre.sessionId).toBe(id);
      expect(pre.summary.preliminary).toBe(true);
      expect(pre.summary.objects).toEqual({ count: 3, size: 100_064 });
      expect(pre.summary.typeCount).toBe(2);
      expect(pre.summary.analysis.state).toBe('pending');
      const early = await mgr.query('typeRows', { sessionId: id, ...ALL });
      expect(mgr.list().find((x) => x.sessionId === id)!.state).toBe('loading'); // answered before the graph: the helper is still held
      expect(JSON.parse(readFileSync(s.args, 'utf8'))).toEqual(['--type-histogram', path]);
      expect(early.total).toBe(2);
      expect(early.rows.map((r) => r.retainedSize)).toEqual([null, null]);
      writeFileSync(s.go, '');
      const ready = await mgr.summary(id);
      expect(ready.preliminary).toBeUndefined();
      expect(ready.objects).toEqual(pre.summary.objects);
      expect(ready.typeCount).toBe(pre.summary.typeCount);
      const final = await mgr.query('typeRows', { sessionId: id, ...ALL });
      expect(figures(final.rows)).toEqual(figures(early.rows));
      expect(figures(early.rows)).toEqual([
        { typeIndex: 2, type: 'Baz', module: null, count: 1, shallowSize: 100_000 },
        { typeIndex: 0, type: 'Foo', module: 'app.dll', count: 2, shallowSize: 64 },
      ]);
      const names = events.filter((e) => (e.payload as { sessionId?: SessionId }).sessionId === id).map((e) => e.name);
      expect(names.indexOf('session-preliminary')).toBeLessThan(names.indexOf('session-ready'));
    } finally {
      await mgr.dispose();
    }
  }, 120_000);

  it('a helper that dies after the histogram fails the session (dump/helper-crashed); its rows go with it', async () => {
    const s = standIn('helper-crash', true);
    process.env.HEAPSCOPE_DUMP_READER = s.helper;
    const path = core('core.2');
    const events: Seen[] = [];
    const mgr = manager(events);
    try {
      const id = mgr.open(await new FileRegistry().register(path, 'path'), path).sessionId;
      await until(() => events.some((e) => e.name === 'session-preliminary'));
      expect((await mgr.query('typeRows', { sessionId: id, ...ALL })).total).toBe(2);
      writeFileSync(s.go, '');
      await expect(mgr.summary(id)).rejects.toMatchObject({ code: 'dump/helper-crashed' });
      const names = events.filter((e) => (e.payload as { sessionId?: SessionId }).sessionId === id).map((e) => e.name);
      expect(names).toEqual(['session-preliminary', 'session-failed']);
      await expect(mgr.query('typeRows', { sessionId: id, ...ALL })).rejects.toMatchObject({ code: 'session/not-found' });
    } finally {
      await mgr.dispose();
    }
  }, 120_000);
});

describe.skipIf(process.platform === 'win32')('cancel and close after the preliminary rows', () => {
  for (const how of ['cancel', 'close'] as const) {
    // close: the worker waits for the cut-off read to kill its helper before main may terminate
    // it (SnapshotHost.close); without that wait the stand-in, which writes nothing more, ran on
    it(`${how} after the preliminary rows stops the helper (no orphan) and ends the session`, async () => {
      const s = standIn(`helper-${how}`, false);
      process.env.HEAPSCOPE_DUMP_READER = s.helper;
      const path = core(`core.${how}`);
      const events: Seen[] = [];
      const mgr = manager(events);
      try {
        const id = mgr.open(await new FileRegistry().register(path, 'path'), path).sessionId;
        await until(() => events.some((e) => e.name === 'session-preliminary'));
        const pid = Number(readFileSync(`${s.args}.pid`, 'utf8'));
        const ready = mgr.summary(id);
        ready.catch(() => undefined);
        if (how === 'cancel') {
          await mgr.cancel(id);
          await expect(ready).rejects.toMatchObject({ code: 'cancelled' });
        } else await mgr.close(id);
        await until(() => {
          try {
            process.kill(pid, 0);
            return false;
          } catch {
            return true; // no such process: the helper was stopped, not left waiting
          }
        });
        await expect(mgr.query('typeRows', { sessionId: id, ...ALL })).rejects.toMatchObject({ code: 'session/not-found' });
        const names = events.filter((e) => (e.payload as { sessionId?: SessionId }).sessionId === id).map((e) => e.name);
        expect(names).toEqual(how === 'cancel' ? ['session-preliminary', 'session-failed'] : ['session-preliminary', 'session-closed']);
      } finally {
        await mgr.dispose();
      }
    }, 120_000);
  }
});

const skip = processDumpSkip('the real dump\'s early rows');

describe.skipIf(skip !== null)(`early rows on a real dump (${skip ?? 'dotnet and the dump reader found'})`, () => {
  it('the helper\'s histogram gives exactly the parsed graph\'s type rows (LeakyApp)', async () => {
    delete process.env.HEAPSCOPE_DUMP_READER;
    const { dir: d, dump } = await dumpDotnetApp('LeakyApp', { prefix: 'heapscope-preliminary-', file: 'leaky.dmp', args: () => ['--objects', '50000'] });
    try {
      let h: TypeHistogram | null = null;
      const graph = await readDumpFile(dump, 'leaky.dmp', { typeHistogram: (x) => (h = x) });
      expect(h).not.toBeNull();
      const info = { sessionId: 's-real' as SessionId, file: { name: 'leaky.dmp' } as FileEntry, parseMs: 0 };
      const early = new PreliminaryTypes(h!, info);
      const session = new SnapshotSession(graph, info);
      for (const key of ['shallowSize', 'count', 'type'] as const) {
        const req = { sort: { key, dir: 'desc' as const }, start: 0, end: 10_000 };
        const a = early.typeRows(req);
        const b = session.typeRows(req);
        expect(a.total).toBe(b.total);
        expect(a.rows).toEqual(b.rows);
      }
      expect(early.summary().objects).toEqual(session.summary().objects);
      expect(session.summary().objects.count).toBeGreaterThan(50_000);
      expect(session.typeRows({ sort: { key: 'type', dir: 'asc' }, start: 0, end: 10_000 }).rows.some((r) => r.type === 'HeapscopeTest.LeakyPage')).toBe(true);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  }, 300_000);
});
