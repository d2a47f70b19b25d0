import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.js';
import type { Backend } from '../../electron/host/backend.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';
import { testBackend } from '../helpers/test-backend.js';

/**
 * memory/too-large on a real file (issue 17 item 5), with the memory lowered through
 * HEAPSCOPE_MEMORY_LIMIT: in the CLI (one coded line, exit 3) and in the app's back end (the
 * tab's load fails with the code and the numbers). perfview_test2.gcdump has 140,391 nodes and a
 * node blob that makes 293,662 expected references: 140,391 × 64 + 293,662 × 6 = 10,746,996 bytes.
 */
const FILE = fixturePath('gcdump/perfview_test2.gcdump');
const ESTIMATE = 10_746_996;
/**
 * The app refuses a tab only when its low-memory plan does not fit: 140,391 × 72 + 293,662 × 8
 * (APP_LOW_BYTES_PER_NODE / _EDGE). Its fast plan would need 140,391 × 105 + 293,662 × 10.
 */
const APP_ESTIMATE = 12_457_448;
const APP_FAST_ESTIMATE = 17_677_675;
const bin = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'heapscope.mjs');

function cli(limit: string, ...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { env: { ...process.env, HEAPSCOPE_FROM_SOURCE: '1', HEAPSCOPE_MEMORY_LIMIT: limit }, encoding: 'utf8', timeout: 120_000 });
}

describe.skipIf(!FILE)('memory/too-large with HEAPSCOPE_MEMORY_LIMIT', () => {
  if (!FILE) console.warn(NO_FIXTURES);

  it('the CLI refuses the file one byte below its estimate, with one coded line and exit code 3', () => {
    const r = cli(String(ESTIMATE - 1), 'info', FILE!);
    expect(r.status).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error memory/too-large: perfview_test2.gcdump needs about 10.2 MB of memory to open (140,391 nodes, about 293,662 references), but only 10.2 MB is available (HEAPSCOPE_MEMORY_LIMIT=${ESTIMATE - 1})\n`,
    );
  }, 120_000);

  it('the CLI opens it with exactly its estimate', () => {
    const r = cli(String(ESTIMATE), 'info', FILE!, '--format', 'json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).nodeCount).toBe(140_391);
  }, 120_000);

  describe('in the app', () => {
    let dir: string | null = null;
    let backend: Backend | null = null;
    const saved = process.env.HEAPSCOPE_MEMORY_LIMIT;
    afterEach(async () => {
      await backend?.dispose();
      backend = null;
      if (saved === undefined) delete process.env.HEAPSCOPE_MEMORY_LIMIT;
      else process.env.HEAPSCOPE_MEMORY_LIMIT = saved;
    });
    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('the tab load fails with memory/too-large and the numbers', async () => {
      dir = mkdtempSync(join(tmpdir(), 'heapscope-memory-'));
      process.env.HEAPSCOPE_MEMORY_LIMIT = '8M'; // workers copy the environment when they start
      backend = testBackend(join(dir, 'config'));
      const file = await backend.service.registerPath({ path: FILE!, via: 'typed' });
      const opened = await backend.service.open({ fileToken: file.token });
      const e = await backend.service.summary({ sessionId: opened.sessionId }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe('memory/too-large');
      expect((e as AppError).detail).toEqual({ estimateBytes: APP_ESTIMATE, availableBytes: 8 * 2 ** 20, nodes: 140_391, edges: 293_662, limit: 'HEAPSCOPE_MEMORY_LIMIT=8M' });
      expect((e as AppError).message).toBe(
        'perfview_test2.gcdump needs about 11.9 MB of memory to open (140,391 nodes, about 293,662 references), but only 8.0 MB is available (HEAPSCOPE_MEMORY_LIMIT=8M)',
      );
    }, 120_000);

    it('opens and analyses the file where only the low-memory plan fits (between its estimate and the fast plan’s)', async () => {
      dir ??= mkdtempSync(join(tmpdir(), 'heapscope-memory-'));
      const limit = Math.floor((APP_ESTIMATE + APP_FAST_ESTIMATE) / 2);
      process.env.HEAPSCOPE_MEMORY_LIMIT = String(limit);
      backend = testBackend(join(dir, 'config-low'));
      const file = await backend.service.registerPath({ path: FILE!, via: 'typed' });
      const opened = await backend.service.open({ fileToken: file.token });
      let s = await backend.service.summary({ sessionId: opened.sessionId });
      for (let i = 0; i < 600 && (s.analysis.state === 'pending' || s.analysis.state === 'running'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        s = await backend.service.summary({ sessionId: opened.sessionId });
      }
      expect(s.nodeCount).toBe(140_391);
      expect(s.analysis.state).toBe('done');
      const rows = await backend.service.typeRows({ sessionId: opened.sessionId, sort: { key: 'retainedSize', dir: 'desc' }, start: 0, end: 1 });
      expect(rows.rows[0]!.retainedSize).toBeGreaterThan(0);
    }, 120_000);
  });
});
