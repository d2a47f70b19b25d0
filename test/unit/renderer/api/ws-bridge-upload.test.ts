import { afterEach, describe, expect, it, vi } from 'vitest';
import { createWsBridge } from '../../../../renderer/api/ws-bridge';

// The browser-mode server refuses uploads authenticated by the cookie alone (electron/server/
// access.ts checkStateChange): the bridge must send the token in the X-Heapscope-Token header.
// A page's fetch to its own origin with that header needs no CORS preflight.
const fakeSocket = () => ({ addEventListener: () => undefined, readyState: 1, send: () => undefined }) as unknown as WebSocket;

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('ws-bridge upload', () => {
  it('POSTs the dropped file to /api/upload with the token in a header, not in the URL', async () => {
    const fetchMock = vi.fn(async () => new Response(JSON.stringify({ ok: true, value: { name: 'a.gcdump' } }), { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    const bridge = createWsBridge(fakeSocket(), new URL('http://127.0.0.1:5555/'), 'abc123');
    const file = new Blob([new Uint8Array([1, 2, 3])]) as Blob & { name: string };
    Object.defineProperty(file, 'name', { value: 'a b.gcdump' });
    const r = await bridge.fileFromDrop(file as never);
    expect(r).toEqual({ ok: true, value: { name: 'a.gcdump' } });
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as unknown as [URL, RequestInit];
    expect(String(url)).toBe('http://127.0.0.1:5555/api/upload?name=a+b.gcdump');
    expect(init.method).toBe('POST');
    expect(init.headers).toEqual({ 'Content-Type': 'application/octet-stream', 'X-Heapscope-Token': 'abc123' });
  });

  it('a refused upload is a coded error with the HTTP status', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('forbidden', { status: 403 })));
    const bridge = createWsBridge(fakeSocket(), new URL('http://127.0.0.1:5555/'), 'abc123');
    expect(await bridge.fileFromDrop({ name: 'x.gcdump', size: 1 } as never)).toEqual({ ok: false, error: { code: 'io/denied', message: 'upload refused: HTTP 403' } });
  });
});
