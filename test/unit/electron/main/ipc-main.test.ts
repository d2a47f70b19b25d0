import { describe, expect, it, vi } from 'vitest';
import type { HeapscopeService } from '../../../../shared/ipc/contract.js';
import { channelOf, HEAPSCOPE_METHODS } from '../../../../shared/ipc/methods.js';
import { EventHub } from '../../../../electron/host/event-hub.js';

// `electron` is stubbed (no binary here): we capture the handlers ipc-main registers and call them
// the way Electron would, with a fake event carrying the sender.
const handlers = new Map<string, (event: unknown, arg: unknown) => Promise<unknown>>();
vi.mock('electron', () => ({
  ipcMain: {
    handle: (ch: string, h: (event: unknown, arg: unknown) => Promise<unknown>) => void handlers.set(ch, h),
    removeHandler: (ch: string) => void handlers.delete(ch),
  },
}));
const { registerIpc, trustedSender } = await import('../../../../electron/main/ipc-main.js');

const service = new Proxy({} as HeapscopeService, {
  get: (_t, m: string) => async (req: unknown) => ({ method: m, req }),
});
const mainFrame = { url: 'file:///app/out/renderer/index.html' };
const wc = { mainFrame };
const goodEvent = { sender: wc, senderFrame: mainFrame };

describe('ipc-main', () => {
  const unregister = registerIpc({ service, events: new EventHub(), isTrusted: trustedSender(() => wc as never, 'file:///app/out/renderer/') });

  it('registers one handler per contract method, on derived channels', () => {
    expect([...handlers.keys()].sort()).toEqual(HEAPSCOPE_METHODS.map((m) => channelOf(m)).sort());
  });

  it('answers trusted, well-formed calls with a Result', async () => {
    const r = await handlers.get(channelOf('typeRows'))!(goodEvent, { sessionId: 's-1', sort: { key: 'count', dir: 'desc' }, start: 0, end: 50 });
    expect(r).toMatchObject({ ok: true, value: { method: 'typeRows' } });
  });

  it('refuses untrusted senders: another webContents, a subframe, a navigated page', async () => {
    const h = handlers.get(channelOf('appInfo'))!;
    await expect(h({ sender: {}, senderFrame: mainFrame }, {})).resolves.toMatchObject({ ok: false, error: { code: 'io/denied' } });
    await expect(h({ sender: wc, senderFrame: { url: mainFrame.url } }, {})).resolves.toMatchObject({ ok: false, error: { code: 'io/denied' } });
    const navigated = { mainFrame: { url: 'https://evil.example/' } };
    const check = trustedSender(() => navigated as never, 'file:///app/out/renderer/');
    expect(check({ sender: navigated, senderFrame: navigated.mainFrame } as never)).toBe(false);
  });

  it('rejects bad argument shapes before the service sees them', async () => {
    const bad: [string, unknown][] = [
      ['typeRows', { sessionId: 's-1', sort: { key: 'count', dir: 'sideways' }, start: 0, end: 10 }],
      ['typeRows', { sessionId: 's-1', sort: { key: 'count', dir: 'asc' }, start: 0, end: 1e9 }],
      ['open', { fileToken: 'abc', path: '/etc/passwd' }],
      ['registerPath', { path: 42, via: 'drop' }],
      ['appInfo', null],
      ['dominatorChildren', { sessionId: 's-1', node: -1, start: 0, end: 1 }],
    ];
    for (const [m, arg] of bad) {
      await expect(handlers.get(channelOf(m as never))!(goodEvent, arg)).resolves.toMatchObject({ ok: false, error: { code: 'usage/bad-argument' } });
    }
  });

  it('unregisters every handler', () => {
    unregister();
    expect(handlers.size).toBe(0);
  });
});
