import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { captureIo } from '../helpers/capture-io.js';
import { currentFile } from '../unit/shared/formats/gcdump/hand-built-stream.js';
import { nestedPrivateObjects } from '../unit/shared/formats/gcdump/hostile-files.js';

/**
 * Issue 13's hostile .gcdump files through the CLI, from real files on disk: one coded line and
 * exit 3, or a report with the name cut. The timeouts only catch a hang.
 */

const dir = mkdtempSync(join(tmpdir(), 'heapscope-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}

/** The tiny file with its node count set to `claim`, as a sparse file of `size` bytes. */
function sparseClaim(path: string, claim: number, size: number): void {
  const bytes = currentFile();
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  let at = 0;
  while (!(dv.getInt32(at, true) === 3 && dv.getInt32(at + 4, true) === 2 && dv.getInt32(at + 8, true) === 6)) at++;
  const head = bytes.slice(0, at + 4);
  new DataView(head.buffer).setInt32(at, claim, true);
  const fd = openSync(path, 'w');
  writeSync(fd, head);
  ftruncateSync(fd, size);
  closeSync(fd);
}

describe('hostile .gcdump files on the command line', () => {
  it.each(['report', 'dominators'])('%s: nested private objects (k = 64, 8 levels) end in one coded line', async (cmd) => {
    const path = join(dir, 'nested.gcdump');
    writeFileSync(path, nestedPrivateObjects(64, 8));
    const r = await run(cmd, path);
    expect(r.code).toBe(3);
    expect(r.out).toBe('');
    expect(r.err).toBe('error format/corrupt: nested.gcdump: the first object is a T8 at offset 24\n');
  }, 30_000);

  it.each(['report', 'dominators'])('%s: a 3 GB sparse file claiming 700M nodes ends in one coded line', async (cmd) => {
    const path = join(dir, 'sparse.gcdump');
    sparseClaim(path, 700_000_000, 3_000_000_000);
    const r = await run(cmd, path);
    expect(r.code).toBe(3);
    expect(r.err).toBe(
      'error format/corrupt: sparse.gcdump: node count 700000000 is more than the file describes (0 addresses and a 0-byte node blob: at most 0 nodes) (in the node table, offset 167)\n',
    );
  }, 30_000);

  it('report: a 16M-character type name is cut, and the report is written', async () => {
    const path = join(dir, 'long.gcdump');
    writeFileSync(path, currentFile({ fooName: 'A'.repeat(16 * 1024 * 1024) }));
    const r = await run('report', path, '--format', 'json');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`"${'A'.repeat(16384)}…"`);
    expect(r.out.length).toBeLessThan(1024 * 1024);
  }, 30_000);
});
