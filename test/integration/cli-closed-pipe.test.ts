import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { writeChainGcdump } from '../helpers/chain-heap.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';

// `heapscope ... | head -c 200`: the real launcher (bin/heapscope.mjs, sources through tsx) in a
// child process whose stdout pipe the reader closes early. A closed pipe ends the command quietly
// with exit code 0 (issue 13 item 8: it was exit 1 with an EPIPE stack trace); any other failure
// to write (a full disk) is one coded line and exit 1.

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'heapscope.mjs');
const dir = mkdtempSync(join(tmpdir(), 'heapscope-pipe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CHAIN = 100_000;
const chain = join(dir, 'chain.gcdump');
const wide = join(dir, 'wide.gcdump');
const wider = join(dir, 'wider.gcdump');
const short = join(dir, 'short.gcdump');
writeChainGcdump(chain, { chain: CHAIN });
writeChainGcdump(short, { chain: 20_000 });
writeChainGcdump(wide, { chain: 10, wide: 20_000 });
writeChainGcdump(wider, { chain: 10, wide: 20_000, copies: 2 });
const shortTail = `0x${(0x10000 + 32 * 20_001).toString(16)}`; // a 20,000-step path

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  received: number;
  err: string;
}

/** Runs the CLI; the reader takes `keep` bytes of stdout, then closes its end of the pipe. */
function runAndCloseAfter(keep: number, args: string[]): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, HEAPSCOPE_FROM_SOURCE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let received = 0;
    let err = '';
    const close = () => child.stdout.destroy();
    if (keep === 0) close();
    child.stdout.on('data', (b: Buffer) => {
      received += b.length;
      if (received >= keep) close();
    });
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, received, err }));
  });
}

describe('a reader that closes the pipe early ends the command with exit 0 and no message', () => {
  it.each([
    [200, ['dominators', chain, '--depth', String(CHAIN + 2), '--format', 'json']],
    [200, ['dominators', chain, '--depth', String(CHAIN + 2)]],
    [200, ['report', wide, '--top', '0']],
    [200, ['diff', wide, wider, '--format', 'csv']],
    [200, ['paths', short, '--address', shortTail]],
    [0, ['report', wide, '--top', '0', '--format', 'json']],
  ])('after %i bytes: %j', { timeout: 60_000 }, async (keep, args) => {
    const r = await runAndCloseAfter(keep, args);
    expect(r).toMatchObject({ code: 0, signal: null, err: '' });
    expect(r.received).toBeGreaterThanOrEqual(keep);
  });

  const trace = fixturePath('nettrace/eventpipe-dotnetcore3.0-win-x64-objver4.nettrace');
  it.skipIf(!trace)(`gc-timeline (478 GCs as JSON)${trace ? '' : ` (${NO_FIXTURES})`}`, { timeout: 60_000 }, async () => {
    const r = await runAndCloseAfter(200, ['gc-timeline', trace!, '--format', 'json']);
    expect(r).toMatchObject({ code: 0, signal: null, err: '' });
  });
});

describe.skipIf(!existsSync('/dev/full'))('a stdout that fails otherwise', () => {
  it('is one coded line on stderr and exit 1 (a full disk: /dev/full)', { timeout: 60_000 }, async () => {
    const fd = openSync('/dev/full', 'w');
    try {
      const r = await new Promise<{ code: number | null; err: string }>((done, fail) => {
        const child = spawn(process.execPath, [bin, 'info', wide], { env: { ...process.env, HEAPSCOPE_FROM_SOURCE: '1' }, stdio: ['ignore', fd, 'pipe'] });
        let err = '';
        child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
        child.on('error', fail);
        child.on('close', (code) => done({ code, err }));
      });
      expect(r).toEqual({ code: 1, err: 'error io/write-failed: cannot write the output: ENOSPC: no space left on device, write\n' });
    } finally {
      closeSync(fd);
    }
  });
});
