import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { FileEntry, SessionInfo, SnapshotSummary, RowWindow, TypeRow, ExportResult, AppInfo, FileLists } from '../../../../shared/ipc/contract.js';
import type { Result } from '../../../../shared/ipc/result.js';
import { locateSample } from '../../../../electron/host/sample.js';
import { serveBrowserMode, SERVING_PREFIX, type Serving } from '../../../../electron/server/serve.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { snapshotFacts } from '../../../helpers/sample-facts.js';
import { wsRpc } from '../../../helpers/ws-page.js';

// The real browser-mode server on 127.0.0.1 (random port), a stub renderer page, real workers.
const SAMPLE = locateSample({ callerUrl: new URL('../../../../electron/host/sample.ts', import.meta.url).href });
let dir: string;
let serving: Serving;
let printed = '';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
function http(path: string, opts: { method?: string; headers?: Record<string, string>; body?: Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: serving.server.port, path, method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

function connect(query: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${serving.server.port}/ws${query}`);
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

const value = <T>(r: Result<T>): T => {
  if (!r.ok) throw new Error(`${r.error.code}: ${r.error.message}`);
  return r.value;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-srv-'));
  const renderer = join(dir, 'renderer');
  mkdirSync(join(renderer, 'assets'), { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>stub</title>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'not a snapshot');
  serving = await serveBrowserMode({
    files: SAMPLE ? [SAMPLE, join(dir, 'secret.txt')] : [],
    open: false,
    rendererDir: renderer,
    scripts: devWorkerScripts(),
    stdout: { write: (s: string) => void (printed += s) },
    stderr: { write: () => undefined },
    configDir: join(dir, 'config'),
    poolSize: 1,
  });
});

afterAll(async () => {
  await serving?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('browser-mode server access', () => {
  it('prints one line with the URL and binds 127.0.0.1 only', () => {
    const lines = printed.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^${SERVING_PREFIX}http://127\\.0\\.0\\.1:\\d+/\\?token=[0-9a-f]{32}$`));
    expect(serving.server.server.address()).toMatchObject({ address: '127.0.0.1' });
  });

  it('refuses requests without the token (403) and serves the page with it', async () => {
    expect((await http('/')).status).toBe(403);
    expect((await http('/?token=nope')).status).toBe(403);
    expect((await http('/assets/app.js')).status).toBe(403);
    const page = await http(`/?token=${serving.server.token}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    const cookie = String(page.headers['set-cookie']).split(';')[0];
    const asset = await http('/assets/app.js', { headers: { Cookie: cookie } });
    expect([asset.status, asset.body]).toEqual([200, 'console.log(1)']);
    expect((await http(`/../secret.txt?token=${serving.server.token}`)).status).toBe(404);
    expect((await http('/%2e%2e/secret.txt', { headers: { Cookie: cookie } })).status).toBe(404);
  });

  it('refuses a foreign Host header (DNS rebinding) and cross-origin WebSockets', async () => {
    expect((await http(`/?token=${serving.server.token}`, { headers: { Host: `evil.example:${serving.server.port}` } })).status).toBe(403);
    await expect(connect('')).rejects.toThrow('HTTP 403');
    await expect(connect('?token=wrong')).rejects.toThrow('HTTP 403');
    const bad = new WebSocket(`ws://127.0.0.1:${serving.server.port}/ws?token=${serving.server.token}`, { origin: 'http://evil.example' });
    await expect(new Promise((res, rej) => (bad.once('open', res), bad.once('unexpected-response', (_q, r) => rej(new Error(`HTTP ${r.statusCode}`)))))).rejects.toThrow('HTTP 403');
  });
});

describe.skipIf(!SAMPLE)('browser-mode server: the contract over WebSocket (sample missing: run test/tools/make-sample.ts)', () => {
  it('round-trips appInfo, the file list, open, summary and typeRows; rejects bad shapes', async () => {
    const ws = await connect(`?token=${serving.server.token}`);
    const c = wsRpc(ws);
    const info = value(await c.call<AppInfo>('appInfo', {}));
    expect(info).toMatchObject({ mode: 'browser', canPickFile: false, canTypePath: true, uploadsDroppedFiles: true });
    const lists = value(await c.call<FileLists>('listFiles', {}));
    expect(lists.commandLine.map((f) => f.name)).toEqual(['sample.gcdump']); // secret.txt was rejected: not a snapshot
    const opened = value(await c.call<SessionInfo>('open', { fileToken: lists.commandLine[0].token }));
    const summary = value(await c.call<SnapshotSummary>('summary', { sessionId: opened.sessionId }));
    expect(summary.objects.count).toBe((await snapshotFacts(SAMPLE!)).objectCount);
    const w = value(await c.call<RowWindow<TypeRow>>('typeRows', { sessionId: opened.sessionId, sort: { key: 'count', dir: 'desc' }, start: 0, end: 10 }));
    expect(w.rows).toHaveLength(10);
    expect(w.total).toBe(summary.typeCount);
    expect(c.events.some((e) => e.name === 'session-ready')).toBe(true);
    const bad = await c.call('typeRows', { sessionId: opened.sessionId, sort: { key: 'nope', dir: 'desc' }, start: 0, end: 10 });
    expect(bad).toMatchObject({ ok: false, error: { code: 'usage/bad-argument' } });
    const typed = await c.call<FileEntry>('registerPath', { path: join(dir, 'secret.txt'), via: 'typed' });
    expect(typed).toMatchObject({ ok: false, error: { code: 'format/unknown' } });
    const csv = value(await c.call<ExportResult>('exportCsv', { sessionId: opened.sessionId, view: 'types', sort: { key: 'count', dir: 'desc' } }));
    expect(csv.outcome).toBe('downloaded');
    const dl = await http(csv.downloadUrl!);
    expect(dl.status).toBe(200);
    expect(dl.body.split('\r\n')).toHaveLength(summary.typeCount + 2);
    expect((await http(csv.downloadUrl!)).status).toBe(404); // one use
    value(await c.call('close', { sessionId: opened.sessionId }));
    ws.close();
  });

  it('accepts an uploaded (dropped) snapshot and refuses an upload that is not one', async () => {
    const bytes = readFileSync(SAMPLE!);
    const up = await http(`/api/upload?token=${serving.server.token}&name=dropped.gcdump`, { method: 'POST', body: bytes });
    const r = JSON.parse(up.body) as Result<FileEntry>;
    expect(value(r)).toMatchObject({ name: 'dropped.gcdump', size: bytes.length, source: 'upload' });
    const junk = await http(`/api/upload?token=${serving.server.token}&name=x.gcdump`, { method: 'POST', body: Buffer.from('hello') });
    expect(JSON.parse(junk.body)).toMatchObject({ ok: false, error: { code: 'format/unknown' } });
    expect((await http('/api/upload?name=x', { method: 'POST', body: Buffer.from('hello') })).status).toBe(403);
  });
});
