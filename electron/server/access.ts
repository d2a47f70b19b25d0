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
 * - WebSocket upgrades with an Origin must come from that same host (cross-site WebSocket hijacking);
 * - state-changing requests (anything but GET/HEAD: the upload) must come from the server's own
 *   origin AND carry the token in the `X-Heapscope-Token` header or the query, never by cookie
 *   alone (checkStateChange below). The cookie cannot tell: a page on 127.0.0.1 at ANOTHER port
 *   is the same site (cookies ignore ports), so SameSite=Strict still sends the cookie with that
 *   page's form POSTs. A form cannot set a header, and a fetch that sets one is preflighted, which
 *   this server never approves.
 */
export const TOKEN_COOKIE = 'heapscope_token';
/** Header carrying the token on state-changing requests (a cross-origin form cannot set it). */
export const TOKEN_HEADER = 'x-heapscope-token';

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
  const h = headerToken(req);
  if (h !== null) return same(h, token) ? { ok: true, viaQuery: false } : { ok: false, viaQuery: false, reason: 'wrong token' };
  const c = cookie(req.headers.cookie, TOKEN_COOKIE);
  if (c !== null && same(c, token)) return { ok: true, viaQuery: false };
  return { ok: false, viaQuery: false, reason: 'missing token' };
}

/**
 * The extra check for a request that changes state (POST /api/upload), after checkAccess passed:
 * null when allowed, else why not. Origin, when sent, must be this server's; without Origin a
 * Referer must be (browsers send at least one of them with a cross-origin POST; `Origin: null`
 * from sandboxed frames and file:// pages is refused). The token must not come by cookie only.
 */
export function checkStateChange(req: IncomingMessage, port: number): string | null {
  const own = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  const origin = req.headers.origin;
  if (origin !== undefined) {
    if (!own.includes(origin)) return `cross-origin request from ${origin.slice(0, 100)}`;
  } else if (req.headers.referer !== undefined) {
    let from: string;
    try {
      from = new URL(req.headers.referer).origin;
    } catch {
      return 'cross-origin request (unreadable Referer)';
    }
    if (!own.includes(from)) return `cross-origin request from ${from.slice(0, 100)}`;
  }
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.searchParams.get('token') === null && headerToken(req) === null) {
    return `the token must come in the ${TOKEN_HEADER} header (or the query), not by cookie alone`;
  }
  return null;
}

function headerToken(req: IncomingMessage): string | null {
  const h = req.headers[TOKEN_HEADER];
  return typeof h === 'string' ? h : null;
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
