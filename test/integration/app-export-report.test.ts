import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { createBackend, type Backend } from '../../electron/host/backend.js';
import { dispatch } from '../../electron/host/dispatch.js';
import { devWorkerScripts } from '../../electron/workers/worker-scripts.js';
import { captureIo } from '../helpers/capture-io.js';
import { fixturePath } from '../helpers/fixtures.js';

/**
 * Export report… through the app's back end (real workers): the HTML written for a session is
 * byte-for-byte what `heapscope suspects --format html` prints for the same file, with another
 * session as the baseline too; a cancelled dialog writes nothing; bad requests are coded errors.
 */
const SAMPLE = join(__dirname, '../../electron/resources/sample.gcdump');
const android1 = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const android2 = fixturePath('gcdump/mono_android_20231108_150644_31024.gcdump');

async function cliHtml(...argv: string[]): Promise<string> {
  const c = captureIo();
  expect(await runCli(['suspects', ...argv, '--format', 'html'], c.io)).toBe(0);
  return c.out;
}

describe('exportReport in the app back end', () => {
  let dir: string;
  let backend: Backend;
  let cancel = false;
  let n = 0;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-app-report-'));
    mkdirSync(join(dir, 'out'));
    backend = createBackend({
      version: 'test',
      shell: {
        mode: 'browser',
        canTypePath: true,
        exportTarget: async (name, kind) => (cancel ? null : { path: join(dir, 'out', `${n++}-${kind}-${name}`), outcome: 'saved' }),
      },
      configDir: join(dir, 'config'),
      samplePath: null,
      scripts: devWorkerScripts(),
      poolSize: 2,
    });
  });

  afterAll(async () => {
    await backend?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(path: string) {
    const file = await backend.service.registerPath({ path, via: 'typed' });
    return (await backend.service.open({ fileToken: file.token })).sessionId;
  }

  it('the sample: the same bytes as the CLI, saved under "<stem>-suspects.html"', async () => {
    const s = await open(SAMPLE);
    const r = await backend.service.exportReport({ sessionId: s });
    const html = await cliHtml(SAMPLE);
    expect(r).toEqual({ outcome: 'saved', bytes: Buffer.byteLength(html), fileName: '0-report-sample-suspects.html', suspects: 4, findings: 11 });
    expect(readFileSync(join(dir, 'out', r.fileName), 'utf8')).toBe(html);
  });

  it.skipIf(!android1 || !android2)('with another tab as the baseline: the growth section, as `suspects --baseline`', async () => {
    const [before, after] = [await open(android1!), await open(android2!)];
    const r = await backend.service.exportReport({ sessionId: after, baselineSessionId: before, thresholdPercent: 2 });
    const html = await cliHtml(android2!, '--baseline', android1!, '--threshold', '2');
    expect(html).toContain('<h2 id="growth">Growth since <span class="name">mono_android_20231108_150515_31024.gcdump</span></h2>');
    expect(readFileSync(join(dir, 'out', r.fileName), 'utf8')).toBe(html);
    expect([r.suspects, r.bytes]).toEqual([2, Buffer.byteLength(html)]);
  });

  it('a dismissed dialog writes nothing; unknown sessions and bad arguments are coded errors', async () => {
    const s = await open(SAMPLE);
    cancel = true;
    try {
      expect(await backend.service.exportReport({ sessionId: s })).toEqual({ outcome: 'cancelled', bytes: 0, fileName: '', suspects: 0, findings: 0 });
    } finally {
      cancel = false;
    }
    await expect(backend.service.exportReport({ sessionId: 'nope' as never })).rejects.toMatchObject({ code: 'session/not-found' });
    await expect(backend.service.exportReport({ sessionId: s, baselineSessionId: 'nope' as never })).rejects.toMatchObject({ code: 'session/not-found' });
    for (const bad of [{ sessionId: s, thresholdPercent: 0 }, { sessionId: s, thresholdPercent: 101 }, { sessionId: s, baselineSessionId: s }, { sessionId: s, extra: 1 }]) {
      const r = await dispatch(backend.service, 'exportReport', bad);
      expect(r).toMatchObject({ ok: false, error: { code: 'usage/bad-argument' } });
    }
  });
});
