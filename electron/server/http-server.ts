import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { WebSocketServer } from 'ws';
import { AppError } from '../../shared/errors.js';
import { err, ok, type Result } from '../../shared/ipc/result.js';
import type { Backend } from '../host/backend.js';
import { checkAccess, checkStateChange, tokenCookie } from './access.js';
import { uploadError, uploadFileName } from './upload-names.js';
import { baseHeaders, serveStatic } from './static-files.js';
import { attachWebSocket } from './ws-endpoint.js';

/**
 * Browser mode's HTTP + WebSocket server: the same contract as Electron IPC, for a browser tab.
 *
 *   GET  /?token=T            the built renderer (out/renderer), assets by cookie afterwards
 *   WS   /ws?token=T          JSON calls {type:'call', id, method, arg} → {type:'result', id, result}
 *                             and pushed events {type:'event', name, payload}
 *   POST /api/upload?name=N   a dropped file, streamed to a temp file → Result<FileEntry>
 *   GET  /api/download/ID     a finished CSV export, once (then deleted)
 *
 * Bound to 127.0.0.1 only; every request and upgrade must pass access.ts (token, Host, Origin).
 * Anything else answers 403/404 without touching the back end.
 */
export interface ServerOptions {
  backend: Backend;
  /** Built renderer directory (index.html); null or missing → a 503 page saying how to build it. */
  rendererDir: string | null;
  token: string;
  /** Where uploads and exports go (a fresh temp dir; removed on close). */
  workDir: string;
  port?: number;
  /** Largest accepted upload (default 16 GiB). */
  maxUploadBytes?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  token: string;
  /** Where uploads and exports go (tests check that no error shows it). */
  workDir: string;
  server: Server;
  /** Register an export file for one download; returns its URL (with the token). */
  offerDownload(path: string, fileName: string): string;
  close(): Promise<void>;
}

export async function startServer(o: ServerOptions): Promise<RunningServer> {
  await mkdir(o.workDir, { recursive: true });
  const downloads = new Map<string, { path: string; fileName: string }>();
  let port = 0;
  const server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      // no message: fs errors name the server's files (its temp directory), which no page may learn
      if (!res.headersSent) send(res, 500, 'text/plain', 'internal error');
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const access = checkAccess(req, o.token, port);
    if (!access.ok) return send(res, 403, 'text/plain', `forbidden: ${access.reason} (open the URL Heapscope printed, with its token)`);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const cookie: Record<string, string> = access.viaQuery ? { 'Set-Cookie': tokenCookie(o.token) } : {};
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      const refused = checkStateChange(req, port);
      if (refused) return send(res, 403, 'text/plain', `forbidden: ${refused}`);
    }
    if (url.pathname === '/api/upload') {
      if (req.method !== 'POST') return send(res, 405, 'text/plain', 'POST only');
      return json(res, await upload(req, url.searchParams.get('name') ?? 'upload.gcdump'));
    }
    if (url.pathname.startsWith('/api/download/')) {
      const id = url.pathname.slice('/api/download/'.length);
      const d = downloads.get(id);
      if (!d) return send(res, 404, 'text/plain', 'no such download (each export can be downloaded once)');
      downloads.delete(id);
      const st = await stat(d.path);
      baseHeaders(res);
      res.writeHead(200, {
        // exports are CSV; "Save snapshot as…" hands out a copy of a snapshot file
        'Content-Type': d.fileName.toLowerCase().endsWith('.csv') ? 'text/csv; charset=utf-8' : 'application/octet-stream',
        'Content-Length': st.size,
        'Content-Disposition': `attachment; filename="${d.fileName.replace(/["\\\r\n]/g, '_')}"`,
        'Cache-Control': 'no-store',
      });
      await pipeline(createReadStream(d.path), res);
      await rm(d.path, { force: true });
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'method not allowed');
    if (await serveStatic(o.rendererDir, url.pathname, res, cookie)) return;
    if (url.pathname === '/favicon.ico') return send(res, 204, 'text/plain', '');
    if (url.pathname === '/' || url.pathname === '/index.html') {
      return send(res, 503, 'text/html; charset=utf-8', '<!doctype html><title>Heapscope</title><p>The renderer is not built: run <code>npm run build</code>, then reload.</p>');
    }
    return send(res, 404, 'text/plain', 'not found');
  }

  async function upload(req: IncomingMessage, name: string): Promise<Result<unknown>> {
    const limit = o.maxUploadBytes ?? 16 * 2 ** 30;
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > limit) return err({ code: 'usage/bad-argument', message: `upload too large (${declared} bytes, limit ${limit})` });
    const safe = uploadFileName(name);
    const dir = join(o.workDir, 'uploads', randomBytes(8).toString('hex'));
    const path = join(dir, safe);
    let received = 0;
    try {
      await mkdir(dir, { recursive: true });
      req.on('data', (c: Buffer) => {
        received += c.length;
        if (received > limit) req.destroy(new AppError('usage/bad-argument', `upload exceeds ${limit} bytes`));
      });
      await pipeline(req, createWriteStream(path, { flags: 'wx' }));
      return ok(await o.backend.files.register(path, 'upload'));
    } catch (e) {
      await rm(dir, { recursive: true, force: true });
      return err(uploadError(e, o.workDir, safe));
    }
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  attachWebSocket(wss, o.backend, o.workDir);
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const access = checkAccess(req, o.token, port, { websocket: true });
    if (url.pathname !== '/ws' || !access.ok) {
      socket.write(`HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\nforbidden: ${access.reason ?? 'not a WebSocket endpoint'}\r\n`);
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/?token=${o.token}`;
  return {
    url,
    port,
    token: o.token,
    workDir: o.workDir,
    server,
    offerDownload(path, fileName) {
      const id = randomBytes(12).toString('hex');
      downloads.set(id, { path, fileName });
      return `/api/download/${id}?token=${o.token}`;
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await rm(o.workDir, { recursive: true, force: true });
    },
  };
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  baseHeaders(res);
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store' });
  res.end(body);
}

function json(res: ServerResponse, value: unknown): void {
  send(res, 200, 'application/json', JSON.stringify(value));
}
