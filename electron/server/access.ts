import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who may talk to the browser-mode server: the holder of a random token, from this machine.
 *
 * The server binds 127.0.0.1 only, so other machines cannot connect at all. The token (128 random
 * bits, printed once in the URL) stops other local users' processes and web pages in the user's
 * own browser: a page on evil.example can make the browser send requests to 127.0.0.1:PORT but
 * cannot know the token. Every HTTP request and every WebSocket upgrade is checked:
 * - `?token=` in the URL (the first page load, the WebSocket URL, the API calls of the bridge), or
 * - the `heapscope_token` cookie the first authenticated page load sets (HttpOnly, SameSite=Strict),
 *   so relative asset URLs (`./assets/x.js`) work without the token in each of them;
 * - the Host header must be 127.0.0.1:PORT or localhost:PORT (DNS-rebinding protection: a
 *   rebinding page would send its own host name);
 * - WebSocket upgrades with an Origin must come from that same host (cross-site WebSocket hijacking).
 */
export const TOKEN_COOKIE = 'heapscope_token';

export function newToken(): string {
  return randomBytes(16).toString('hex');
}

export interface AccessCheck {
  ok: boolean;
  /** Token came in the query string (so the response may set the cookie). */
  viaQuery: boolean;
  reason?: string;
}

export function checkAccess(req: IncomingMessage, token: string, port: number, opts: { websocket?: boolean } = {}): AccessCheck {
  const host = req.headers.host ?? '';
  const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  if (!allowedHosts.includes(host)) return { ok: false, viaQuery: false, reason: `unexpected Host header "${host}"` };
  if (opts.websocket && req.headers.origin !== undefined) {
    const origin = req.headers.origin;
    if (!allowedHosts.some((h) => origin === `http://${h}`)) return { ok: false, viaQuery: false, reason: `cross-origin WebSocket from ${origin}` };
  }
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const q = url.searchParams.get('token');
  if (q !== null) return same(q, token) ? { ok: true, viaQuery: true } : { ok: false, viaQuery: true, reason: 'wrong token' };
  const c = cookie(req.headers.cookie, TOKEN_COOKIE);
  if (c !== null && same(c, token)) return { ok: true, viaQuery: false };
  return { ok: false, viaQuery: false, reason: 'missing token' };
}

export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}
