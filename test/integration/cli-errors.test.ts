import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { captureIo } from '../helpers/capture-io.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'heapscope-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}

describe('heapscope info/report usage errors exit 2', () => {
  it.each([
    [['report', 'x.gcdump', '--sort', 'bogus']],
    [['report', 'x.gcdump', '--top', 'ten']],
    [['report', 'x.gcdump', '--format', 'xml']],
    [['report', 'x.gcdump', '--colour']],
    [['report']],
    [['info', 'a.gcdump', 'b.gcdump']],
    [['info', 'x.gcdump', '--format', 'csv']],
  ])('%j', async (argv) => {
    const r = await run(...argv);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^error usage\/bad-argument: .+\nusage: heapscope (info|report) FILE/);
  });
});

describe('unreadable input exits 3 with one coded line', () => {
  it.each(['info', 'report'])('%s on a missing file', async (cmd) => {
    const r = await run(cmd, join(dir, 'missing.gcdump'));
    expect(r.code).toBe(3);
    expect(r.out).toBe('');
    expect(r.err).toBe(`error io/not-found: no such file: ${join(dir, 'missing.gcdump')}\n`);
  });

  it('garbage bytes', async () => {
    const p = join(dir, 'garbage.gcdump');
    writeFileSync(p, Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 37 + 11) & 0xff)));
    const r = await run('report', p);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^error format\/unknown: garbage\.gcdump is not a \.gcdump[^\n]*\n$/);
  });

  const real = fixturePath('gcdump/perfview_test2.gcdump');
  it.skipIf(!real)(`a truncated .gcdump${real ? '' : ` (${NO_FIXTURES})`}`, async () => {
    const p = join(dir, 'truncated.gcdump');
    writeFileSync(p, readFileSync(real!).subarray(0, 30));
    const r = await run('info', p);
    expect(r.code).toBe(3);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^error format\/truncated: truncated\.gcdump [^\n]*\n$/);
    const half = join(dir, 'half.gcdump');
    writeFileSync(half, readFileSync(real!).subarray(0, 500_000));
    const r2 = await run('report', half, '--format', 'json');
    expect(r2.code).toBe(3);
    expect(r2.out).toBe('');
    expect(r2.err).toMatch(/^error format\/(truncated|corrupt): half\.gcdump[^\n]*\n$/);
  });
});
