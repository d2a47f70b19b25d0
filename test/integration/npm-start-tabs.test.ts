import type { ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { FileEntry } from '../../shared/ipc/contract.js';
import type { Result } from '../../shared/ipc/result.js';
import { OUTPUTS } from '../../electron/scripts/build-main.js';
import { electronBinary } from '../../electron/scripts/electron-binary.js';
import { locateSample } from '../../electron/host/sample.js';
import { ROOT, startBrowserMode } from '../helpers/npm-start.js';

// `npm start` without an Electron binary (browser mode): the bundled sample, and a file named
// after `--` relative to where the user typed the command (INIT_CWD), open as tabs in the first
// page. Runs electron/scripts/start.ts as npm would (after `npm run build`, which it needs).
const SAMPLE = locateSample({ callerUrl: new URL('../../electron/host/sample.ts', import.meta.url).href });
const built = Object.values(OUTPUTS).every((f) => existsSync(f));
const skip = electronBinary(ROOT) ? 'an Electron binary is installed: npm start would launch it (test/e2e/electron covers that)' : !built ? 'not built: run npm run build first' : !SAMPLE ? 'sample missing' : '';

let child: ChildProcess | null = null;
const dir = mkdtempSync(join(tmpdir(), 'heapscope-npm-start-'));
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!!skip)(`npm start in browser mode${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('opens the sample and the named file as tabs in the first page', async () => {
    mkdirSync(join(dir, 'work', 'dumps'), { recursive: true });
    copyFileSync(SAMPLE!, join(dir, 'work', 'dumps', 'mine.gcdump'));
    const started = await startBrowserMode(['--no-open', '--', 'dumps/mine.gcdump'], {
      ...process.env,
      HEAPSCOPE_NO_OPEN: '1',
      HEAPSCOPE_CONFIG_DIR: join(dir, 'config'),
      INIT_CWD: join(dir, 'work'),
    });
    child = started.child;
    const url = started.url;
    const u = new URL(url);
    const ws = new WebSocket(`ws://${u.host}/ws?token=${u.searchParams.get('token')}`);
    await new Promise((res, rej) => {
      ws.once('open', res);
      ws.once('error', rej);
    });
    const reply = new Promise<Result<FileEntry[]>>((res) => ws.once('message', (m) => res((JSON.parse(String(m)) as { result: Result<FileEntry[]> }).result)));
    ws.send(JSON.stringify({ type: 'call', id: 1, method: 'takePendingOpens', arg: {} }));
    const r = await reply;
    ws.close();
    expect(r.ok && r.value.map((f) => [f.displayPath, f.source])).toEqual([
      [resolve(SAMPLE!), 'command-line'],
      [join(dir, 'work', 'dumps', 'mine.gcdump'), 'command-line'],
    ]);
  });
});
