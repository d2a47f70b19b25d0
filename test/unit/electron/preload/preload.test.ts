import { beforeEach, describe, expect, it, vi } from 'vitest';
import { channelOf, EVENT_CHANNEL, HEAPSCOPE_METHODS } from '../../../../shared/ipc/methods.js';

// `electron` is stubbed: no Electron binary here, and the preload's only contact with Electron is
// these three objects. We capture what it exposes and what it invokes.
const exposed: Record<string, unknown> = {};
const invoke = vi.fn(async (channel: string, req: unknown) => ({ ok: true, value: { channel, req } }));
let eventHandler: ((e: unknown, msg: unknown) => void) | null = null;
const ipcRenderer = {
  invoke,
  on: vi.fn((channel: string, h: (e: unknown, msg: unknown) => void) => {
    if (channel === EVENT_CHANNEL) eventHandler = h;
  }),
};
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => void (exposed[key] = api) },
  ipcRenderer,
  webUtils: { getPathForFile: (f: { fakePath?: string }) => f.fakePath ?? '' },
}));

type Bridge = Record<string, unknown> & {
  on(e: string, cb: (p: unknown) => void): () => void;
  fileFromDrop(f: unknown): Promise<unknown>;
};

beforeEach(async () => {
  await import('../../../../electron/preload/preload.js');
});

describe('preload', () => {
  it('exposes exactly the contract methods plus on/fileFromDrop/mode, never ipcRenderer', () => {
    const api = exposed.heapscope as Bridge;
    expect(Object.keys(api).sort()).toEqual([...HEAPSCOPE_METHODS, 'fileFromDrop', 'mode', 'on'].sort());
    expect(api.mode).toBe('electron');
    for (const v of Object.values(api)) {
      expect(v).not.toBe(ipcRenderer);
      expect(v).not.toBe(invoke);
    }
  });

  it('invokes the derived channel of each method with its one argument', async () => {
    const api = exposed.heapscope as Record<string, (r: unknown) => Promise<unknown>>;
    for (const m of HEAPSCOPE_METHODS) {
      invoke.mockClear();
      await api[m]({ probe: m });
      expect(invoke).toHaveBeenCalledWith(channelOf(m), { probe: m });
    }
  });

  it('turns a broken channel into a coded Result instead of a rejection', async () => {
    invoke.mockRejectedValueOnce(new Error('channel closed'));
    const api = exposed.heapscope as Record<string, (r: unknown) => Promise<unknown>>;
    await expect(api.appInfo({})).resolves.toMatchObject({ ok: false, error: { code: 'bug' } });
  });

  it('delivers only contract events, with unsubscribe', () => {
    const api = exposed.heapscope as Bridge;
    const got: unknown[] = [];
    const off = api.on('busy', (p) => got.push(p));
    eventHandler!(null, { name: 'busy', payload: { busy: true } });
    eventHandler!(null, { name: 'not-an-event', payload: 1 });
    off();
    eventHandler!(null, { name: 'busy', payload: { busy: false } });
    expect(got).toEqual([{ busy: true }]);
    expect(() => api.on('nope', () => undefined)).toThrow(/unknown event/);
  });

  it('sends a dropped file to main as a path via webUtils, never as typed text', async () => {
    const api = exposed.heapscope as Bridge;
    invoke.mockClear();
    await api.fileFromDrop({ name: 'a.gcdump', size: 1, fakePath: '/tmp/a.gcdump' });
    expect(invoke).toHaveBeenCalledWith(channelOf('registerPath'), { path: '/tmp/a.gcdump', via: 'drop' });
    await expect(api.fileFromDrop({ name: 'x', size: 1 })).resolves.toMatchObject({ ok: false, error: { code: 'usage/bad-argument' } });
  });
});
