import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { transparentHugePageMode } from '../../bin/huge-pages.mjs';
import { OUTPUTS } from '../../electron/scripts/build-main.js';
import { electronBinary } from '../../electron/scripts/electron-binary.js';
import { ROOT, startBrowserMode } from '../helpers/npm-start.js';

// `HEAPSCOPE_HUGE_PAGES=1 npm start` in browser mode (bin/huge-pages.mjs, issue 17): start.ts runs
// itself again with glibc's huge-page tunable, the re-run serves the app, and stopping the first
// process stops the re-run too (no orphan). Linux with THP in `madvise` mode only: elsewhere the
// variable changes nothing.
const built = Object.values(OUTPUTS).every((f) => existsSync(f));
const skip =
  process.platform !== 'linux'
    ? 'not Linux'
    : transparentHugePageMode() !== 'madvise'
      ? `transparent huge pages are '${transparentHugePageMode()}', not 'madvise'`
      : electronBinary(ROOT)
        ? 'an Electron binary is installed: npm start would launch it'
        : !built
          ? 'not built: run npm run build first'
          : '';

/** Every process below `pid`, from /proc (pid → its environment's GLIBC_TUNABLES, or ''). */
function descendants(pid: number): Map<number, string> {
  const parentOf = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = new Map<number, string>();
  for (const [p] of parentOf) {
    for (let up = parentOf.get(p); up !== undefined; up = parentOf.get(up)) {
      if (up !== pid) continue;
      let tunables = '';
      try {
        tunables = readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').find((e) => e.startsWith('GLIBC_TUNABLES=')) ?? '';
      } catch {
        // gone meanwhile
      }
      found.set(p, tunables);
      break;
    }
  }
  return found;
}

let child: ChildProcess | null = null;
let below = new Map<number, string>();
const dir = mkdtempSync(join(tmpdir(), 'heapscope-npm-start-hp-'));
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  // a re-run left behind by a failed assertion
  for (const pid of below.keys()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!!skip)(`HEAPSCOPE_HUGE_PAGES=1 npm start in browser mode${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('serves the app from a re-run with the huge-page tunable, which stops with it', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HEAPSCOPE_NO_OPEN: '1', HEAPSCOPE_HUGE_PAGES: '1', HEAPSCOPE_CONFIG_DIR: join(dir, 'config') };
    delete env.GLIBC_TUNABLES;
    const started = await startBrowserMode(['--no-open'], env);
    child = started.child;
    const { url } = started;
    expect((await fetch(url)).status).toBe(200);
    // one line about the missing Electron binary: the re-run prints it, the first process does not
    expect(started.output().match(/No Electron binary/g)).toHaveLength(1);
    below = descendants(child.pid!);
    const withTunable = [...below.values()].filter((t) => t === 'GLIBC_TUNABLES=glibc.malloc.hugetlb=1');
    expect(withTunable).toHaveLength(1);

    const exited = new Promise<void>((r) => child!.once('exit', () => r()));
    child.kill('SIGTERM');
    await exited;
    // tsx passes the signal to start.ts, which passes it to its re-run
    const deadline = Date.now() + 10_000;
    while ([...below.keys()].some((p) => existsSync(`/proc/${p}`)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect([...below.keys()].filter((p) => existsSync(`/proc/${p}`))).toEqual([]);
  }, 60_000);
});
