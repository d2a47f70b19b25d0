import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../../../electron/cli/main.js';
import { captureIo } from '../../../../helpers/capture-io.js';
import { fixturePath } from '../../../../helpers/fixtures.js';

/**
 * `heapscope runtime|threads|object` before any helper runs: files that are not process dumps get
 * dump/not-a-dump naming what they are, bad flags are usage errors. (The answers themselves are
 * tested on a real dump in test/integration/dump-queries.test.ts.)
 */
const gcdump = fixturePath('gcdump/perfview_test1.gcdump');
const dir = mkdtempSync(join(tmpdir(), 'heapscope-dump-cli-'));

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await runCli(args, c.io);
  return { code, out: c.out, err: c.err };
}

describe('dump query commands on files that are not process dumps', () => {
  it.skipIf(!gcdump)(`a .gcdump: dump/not-a-dump for each command (${gcdump ? 'fixture found' : 'shared fixtures not found'})`, async () => {
    for (const cmd of [['runtime'], ['threads'], ['object', '--address', '0x1000']]) {
      const r = await cli([cmd[0], gcdump!, ...cmd.slice(1)]);
      expect([r.code, r.out]).toEqual([3, '']);
      expect(r.err).toBe(
        `error dump/not-a-dump: perfview_test1.gcdump is a .gcdump file; heapscope ${cmd[0]} needs a full process dump (heapscope dump -p PID, dotnet-dump collect or createdump), which holds threads, runtime info and object contents\n`,
      );
    }
  });

  it('a text file: "not a snapshot Heapscope reads"', async () => {
    const txt = join(dir, 'notes.txt');
    writeFileSync(txt, 'hello, not a dump\n'.repeat(100));
    const r = await cli(['threads', txt]);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^error dump\/not-a-dump: notes\.txt is not a snapshot Heapscope reads; heapscope threads needs a full process dump/);
  });

  it('usage errors: no --address, a non-hex address, too many elements, two files', async () => {
    const txt = join(dir, 'x.dmp');
    writeFileSync(txt, 'x');
    expect((await cli(['object', txt])).code).toBe(2);
    expect((await cli(['object', txt, '--address', '0xZZ'])).code).toBe(2);
    expect((await cli(['object', txt, '--address', '0x10', '--elements', '1001'])).code).toBe(2);
    expect((await cli(['threads', txt, txt])).code).toBe(2);
    expect((await cli(['runtime', txt, '--format', 'csv'])).code).toBe(2);
  });
});
