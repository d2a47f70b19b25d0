import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors.js';
import type { SessionId } from '../../../../shared/ipc/contract.js';
import type { DumpQueryClient } from '../../../../electron/dump-reader/dump-query-client.js';
import { DumpInspectors } from '../../../../electron/host/dump-inspectors.js';
import type { SessionManager } from '../../../../electron/host/session-manager.js';

/**
 * DumpInspectors with a stand-in session manager and stand-in clients: one client per dump
 * session even when its first requests arrive together, none for other formats, closed with
 * the session and on dispose.
 */
function fakeSessions(formats: Record<string, string>): SessionManager {
  return {
    async summary(id: SessionId) {
      await new Promise((r) => setTimeout(r, 5));
      if (!(id in formats)) throw new AppError('session/not-found', `no open session ${id}`);
    },
    fileOf(id: SessionId) {
      return { file: { name: `${id}.file` }, path: `/x/${id}`, summary: { metadata: { format: formats[id] } } };
    },
  } as unknown as SessionManager;
}

interface FakeClient {
  path: string;
  queries: string[];
  closed: boolean;
}

function inspectors(formats: Record<string, string>) {
  const made: FakeClient[] = [];
  const d = new DumpInspectors(fakeSessions(formats), (path) => {
    const c: FakeClient = { path, queries: [], closed: false };
    made.push(c);
    return {
      async query(q: { query: string }) {
        c.queries.push(q.query);
        return { query: q.query, path };
      },
      get isRunning() {
        return !c.closed;
      },
      async close() {
        c.closed = true;
      },
    } as unknown as DumpQueryClient;
  });
  return { d, made };
}

const sid = (s: string) => s as SessionId;

describe('DumpInspectors', () => {
  it('makes one client per dump session, even for concurrent first requests, and closes it with the session', async () => {
    const { d, made } = inspectors({ a: 'dump', b: 'dump' });
    await Promise.all([d.query(sid('a'), { query: 'runtime' }), d.query(sid('a'), { query: 'threads' }), d.query(sid('b'), { query: 'runtime' })]);
    expect(made.map((c) => [c.path, c.queries.join(',')])).toEqual([
      ['/x/a', 'runtime,threads'],
      ['/x/b', 'runtime'],
    ]);
    expect(d.running).toBe(2);
    await d.close(sid('a'));
    expect(made.map((c) => c.closed)).toEqual([true, false]);
    expect(d.running).toBe(1);
    await d.dispose();
    expect(made.map((c) => c.closed)).toEqual([true, true]);
    expect(d.running).toBe(0);
  });

  it('refuses sessions that are not process dumps with dump/not-a-dump, and unknown sessions with session/not-found, starting nothing', async () => {
    const { d, made } = inspectors({ g: 'gcdump' });
    await expect(d.query(sid('g'), { query: 'threads' })).rejects.toMatchObject({ code: 'dump/not-a-dump', message: 'g.file is not a process dump: object values, threads and runtime details need a full process dump' });
    await expect(d.query(sid('nope'), { query: 'threads' })).rejects.toMatchObject({ code: 'session/not-found' });
    expect(made).toHaveLength(0);
  });
});
