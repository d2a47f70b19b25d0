import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ROOT, SKIP, fixture, openPath, tabNamed } from './helpers';

// Issue 17 item 5 in the browser: a heap that needs more memory than is available fails its tab
// with memory/too-large, the estimate and the available memory, before anything is allocated.
// Its own `heapscope serve` with HEAPSCOPE_MEMORY_LIMIT=8M (perfview_test2.gcdump needs
// 140,391 × 105 + 293,662 × 10 = 17,677,675 bytes in the app, shared/graph/memory-estimate.ts).
test.skip(!!SKIP, SKIP);

let work: string;
let server: { url: string; child: ChildProcess } | null = null;

function serve(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'heapscope.mjs'), 'serve', '--port', '0', '--no-open'], {
    cwd: ROOT,
    env: { ...process.env, HEAPSCOPE_NO_OPEN: '1', HEAPSCOPE_MEMORY_LIMIT: '8M', HEAPSCOPE_CONFIG_DIR: join(work, 'config') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`heapscope serve printed no URL within 60 s:\n${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /Heapscope is serving at (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout?.removeListener('data', onData);
      child.stdout?.resume();
      resolve({ url: m[1], child });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (d: Buffer) => void (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`heapscope serve exited with ${code}:\n${out}`)));
  });
}

test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'heapscope-e2e-memory-'));
  server = await serve();
});

test.afterAll(async () => {
  const child = server?.child;
  if (child && child.exitCode === null) {
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        child.kill('SIGKILL');
        resolve();
      }, 5000);
      child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
  rmSync(work, { recursive: true, force: true });
});

test('a heap larger than the available memory fails its tab with memory/too-large and the numbers', async ({ page }) => {
  await page.goto(server!.url);
  await expect(page.getByTestId('welcome')).toBeVisible();
  await openPath(page, fixture('gcdump/perfview_test2.gcdump'));
  await expect(tabNamed(page, 'perfview_test2.gcdump')).toHaveClass(/active/);
  await expect(page.getByTestId('load-error')).toContainText('This snapshot needs more memory than this machine has available', { timeout: 30_000 });
  await expect(page.getByTestId('load-error-detail')).toHaveText(
    'perfview_test2.gcdump needs about 16.9 MB of memory to open (140,391 nodes, about 293,662 references), but only 8.0 MB is available (HEAPSCOPE_MEMORY_LIMIT=8M)',
  );
});
