import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';

/**
 * Serves the built renderer (out/renderer) read-only, with the headers a local app page needs.
 *
 * Paths are resolved under the root and anything that escapes it (`..`, encoded or not) is a 404,
 * never a read. HTML gets the same Content-Security-Policy as the Electron window (scripts only
 * from this origin, WebSocket only back to 127.0.0.1/localhost) and `Referrer-Policy: no-referrer`,
 * so the token in the page URL never leaks to a link target.
 */
export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.map': 'application/json',
};

export function baseHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}

/** Serve `pathname` from `root`; false when there is no such file (the caller answers 404). */
export async function serveStatic(root: string | null, pathname: string, res: ServerResponse, extraHeaders: Record<string, string> = {}): Promise<boolean> {
  if (!root) return false;
  let rel: string;
  try {
    rel = decodeURIComponent(pathname);
  } catch {
    return false;
  }
  if (rel.includes('\0')) return false;
  if (rel === '/' || rel === '') rel = '/index.html';
  const base = resolve(root);
  const file = resolve(join(base, rel));
  if (file !== base && !file.startsWith(base + sep)) return false;
  let size: number;
  try {
    const st = await stat(file);
    if (!st.isFile()) return false;
    size = st.size;
  } catch {
    return false;
  }
  const ext = extname(file).toLowerCase();
  baseHeaders(res);
  for (const [k, v] of Object.entries(extraHeaders)) res.setHeader(k, v);
  res.setHeader('Content-Type', TYPES[ext] ?? 'application/octet-stream');
  res.setHeader('Content-Length', size);
  if (ext === '.html') {
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('Cache-Control', 'no-store');
  }
  res.writeHead(200);
  createReadStream(file).pipe(res);
  return true;
}
