import { _electron as electron, expect, test } from '@playwright/test';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary } from '../../../electron/scripts/electron-binary.js';

// The packaged-app path end to end: real Electron main + sandboxed preload + workers, on the built
// app (npm run build) with the bundled sample. Never require('electron') to probe: it downloads.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const bin = electronBinary(ROOT);
test.skip(!bin, 'no Electron binary on this machine (offline install: node_modules/electron/dist is empty; set ELECTRON_EXEC_PATH to run this)');

test('the Electron app opens the sample through the preload bridge only', async () => {
  const app = await electron.launch({ executablePath: bin!, args: [ROOT, '--open-sample', '--no-sandbox'] });
  try {
    const win = await app.firstWindow();
    await win.waitForLoadState('domcontentloaded');
    // The renderer is isolated: no Node, no ipcRenderer, only window.heapscope.
    expect(await win.evaluate(() => typeof (globalThis as unknown as { require?: unknown }).require)).toBe('undefined');
    const info = await win.evaluate(async () => (globalThis as unknown as { heapscope: { appInfo(r: object): Promise<{ ok: boolean; value: { mode: string } }> } }).heapscope.appInfo({}));
    expect(info).toMatchObject({ ok: true, value: { mode: 'electron' } });
    await expect
      .poll(
        async () =>
          win.evaluate(async () => {
            const r = await (globalThis as unknown as { heapscope: { listSessions(r: object): Promise<{ ok: boolean; value: { state: string }[] }> } }).heapscope.listSessions({});
            return r.ok ? r.value.map((s) => s.state).join(',') : 'error';
          }),
        { timeout: 30_000 },
      )
      .toContain('ready');
  } finally {
    await app.close();
  }
});
