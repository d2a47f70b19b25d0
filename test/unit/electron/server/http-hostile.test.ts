import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import WebSocket from 'ws';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileEntry, SessionInfo, SnapshotSummary } from '../../../../shared/ipc/contract.js';
import type { Result } from '../../../../shared/ipc/result.js';
import { TOKEN_COOKIE, TOKEN_HEADER } from '../../../../electron/server/access.js';
import { serveBrowserMode, type Serving } from '../../../../electron/server/serve.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { generateGcdump } from '../../../tools/gen-gcdump.js';

// Issue 13: hostile requests to the browser-mode server. A page on another local origin
// (127.0.0.1 on another port) is same-SITE for cookies, so the SameSite=Strict token cookie rides
// along on its form POSTs; the server must refuse state-changing requests it did not get from its
// own page. And no error may show where the server keeps its files.
let dir: string;
let dump: Buffer;
let serving: Serving;
let seq = 0;

interface Reply {
  status: number;
  body: string;
}
function http(path: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: serving.server.port, path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const own = () => `http://127.0.0.1:${serving.server.port}`;
const cookie = () => `${TOKEN_COOKIE}=${serving.server.token}`;
const foreign = () => `http://127.0.0.1:${serving.server.port === 65535 ? 65534 : serving.server.port + 1}`;
/** Names of the files the server holds as uploads (each upload gets its own directory). */
function uploads(): number {
  const root = join(serving.server.workDir, 'uploads');
  try {
    return readdirSync(root).length;
  } catch {
    return 0;
  }
}
const upload = (headers: Record<string, string>, name = `u${++seq}.gcdump`, body = dump, query = '') =>
  http(`/api/upload?name=${encodeURIComponent(name)}${query}`, { method: 'POST', body, headers });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-hostile-'));
  const renderer = join(dir, 'renderer');
  mkdirSync(renderer, { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>stub</title>');
  generateGcdump({ objects: 200, seed: 3, out: join(dir, 'small.gcdump') });
  dump = readFileSync(join(dir, 'small.gcdump'));
  serving = await serveBrowserMode({
    files: [],
    open: false,
    rendererDir: renderer,
    scripts: devWorkerScripts(),
    stdout: { write: () => undefined },
    stderr: { write: () => undefined },
    configDir: join(dir, 'config'),
    poolSize: 1,
  });
});

afterAll(async () => {
  await serving?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('browser-mode server: cross-origin state changes', () => {
  it('refuses a form POST from another local origin that carries only the cookie', async () => {
    const before = uploads();
    const r = await upload({ Cookie: cookie(), Origin: foreign(), 'Content-Type': 'multipart/form-data; boundary=x' });
    expect(r.status).toBe(403);
    expect(r.body).toContain('cross-origin');
    expect(uploads()).toBe(before); // nothing written
  });

  it('refuses a POST whose Referer (no Origin) is another origin, and one with Origin: null', async () => {
    expect((await upload({ Cookie: cookie(), Referer: `${foreign()}/attack.html` })).status).toBe(403);
    expect((await upload({ Cookie: cookie(), Origin: 'null' })).status).toBe(403);
  });

  it('refuses a POST authenticated by the cookie alone, even from its own origin (a header or query token is required)', async () => {
    const r = await upload({ Cookie: cookie(), Origin: own() });
    expect(r.status).toBe(403);
  });

  it('accepts its own page: Origin of the server plus the token header (what ws-bridge.ts sends)', async () => {
    const r = await upload({ Cookie: cookie(), Origin: own(), [TOKEN_HEADER]: serving.server.token }, 'mine.gcdump');
    expect(r.status).toBe(200);
    expect((JSON.parse(r.body) as Result<FileEntry>).ok).toBe(true);
  });

  it('still accepts the token in the query from a client without Origin (scripts, older bridges)', async () => {
    const r = await upload({}, 'script.gcdump', dump, `&token=${serving.server.token}`);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ ok: true, value: { name: 'script.gcdump', size: dump.length } });
  });

  it('refuses a wrong token header', async () => {
    expect((await upload({ Origin: own(), [TOKEN_HEADER]: 'f'.repeat(32) })).status).toBe(403);
  });
});

describe('browser-mode server: uploads never show server paths', () => {
  // the token in the query, as the bridge sent it before this change (the bug showed that way)
  const q = () => `&token=${serving.server.token}`;

  it.each(['..', '.', '../..', '/', '...', '..\\..'])('an upload named %j is stored under a safe name or refused with a coded error', async (name) => {
    const r = await upload({}, name, dump, q());
    expect(r.status).toBe(200);
    const res = JSON.parse(r.body) as Result<FileEntry>;
    if (res.ok) {
      // stored in its own upload directory under the default name, never next to or above it
      expect(res.value.name).toBe('upload.gcdump');
      expect(res.value.size).toBe(dump.length);
      expect(dirname(dirname(res.value.displayPath))).toBe(join(serving.server.workDir, 'uploads'));
    } else {
      expect(res.error.code).toMatch(/^(usage|io|format)\//);
      expect(r.body).not.toContain(serving.server.workDir);
      expect(r.body).not.toContain(tmpdir());
    }
  });

  it('a junk upload gets format/unknown naming the upload, not its temp path', async () => {
    const r = await upload({}, 'junk.gcdump', Buffer.from('hello'), q());
    expect(r.body).not.toContain(serving.server.workDir);
    expect(JSON.parse(r.body)).toMatchObject({ ok: false, error: { code: 'format/unknown' } });
    expect((JSON.parse(r.body) as { error: { message: string } }).error.message).toContain('junk.gcdump');
  });
});

describe('browser-mode server: WebSocket errors never show server paths', () => {
  function call<T>(ws: WebSocket, id: number, method: string, arg: unknown): Promise<Result<T>> {
    return new Promise((resolve) => {
      const on = (data: WebSocket.RawData) => {
        const m = JSON.parse(String(data)) as { type: string; id: number; result: Result<T> };
        if (m.type !== 'result' || m.id !== id) return;
        ws.off('message', on);
        resolve(m.result);
      };
      ws.on('message', on);
      ws.send(JSON.stringify({ type: 'call', id, method, arg }));
    });
  }

  it('an export that fails inside the temp directory says so without naming it', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${serving.server.port}/ws?token=${serving.server.token}`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const file = await call<FileEntry>(ws, 1, 'registerPath', { path: join(dir, 'small.gcdump'), via: 'typed' });
    const info = await call<SessionInfo>(ws, 2, 'open', { fileToken: (file as { value: FileEntry }).value.token });
    const sessionId = (info as { value: SessionInfo }).value.sessionId;
    expect((await call<SnapshotSummary>(ws, 3, 'summary', { sessionId })).ok).toBe(true);
    // exports go to <workDir>/exports/<random>/: a file in the way makes that mkdir fail
    writeFileSync(join(serving.server.workDir, 'exports'), 'in the way');
    const r = await call(ws, 4, 'exportCsv', { sessionId, view: 'types', sort: { key: 'count', dir: 'desc' } });
    expect(r.ok).toBe(false);
    expect(JSON.stringify(r)).not.toContain(serving.server.workDir);
    expect(JSON.stringify(r)).not.toContain(tmpdir());
    ws.close();
  });
});
