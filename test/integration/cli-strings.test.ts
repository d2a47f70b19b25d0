import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { captureIo } from '../helpers/capture-io.js';

/**
 * `heapscope strings` on files without string contents, and its flag checks: no .NET needed
 * (the numbers on a real dump are in dump-strings.test.ts, which needs dotnet and the helper).
 */
const SAMPLE = join(__dirname, '../../electron/resources/sample.gcdump');

describe('heapscope strings without a process dump', () => {
  it('a .gcdump is strings/needs-dump with exit code 2, in every output format', async () => {
    for (const format of ['table', 'json', 'csv']) {
      const c = captureIo();
      expect(await runCli(['strings', SAMPLE, '--format', format], c.io)).toBe(2);
      expect(c.out).toBe('');
      expect(c.err).toBe(
        'error strings/needs-dump: sample.gcdump is a gcdump file, which has no string contents: duplicate strings need a full process dump (heapscope dump -p PID)\n' +
          'usage: heapscope strings FILE [--top N] [--min-count K] [--domain NAME|INDEX] [--format table|csv|json]\n',
      );
    }
  });

  it('checks its flags before reading the file', async () => {
    const zero = captureIo();
    expect(await runCli(['strings', SAMPLE, '--min-count', '0'], zero.io)).toBe(2);
    expect(zero.err).toMatch(/^error usage\/bad-argument: --min-count must be at least 1\n/);
    const top = captureIo();
    expect(await runCli(['strings', SAMPLE, '--top', 'x'], top.io)).toBe(2);
    expect(top.err).toMatch(/^error usage\/bad-argument: --top must be a whole number \(got "x"\)\n/);
    const two = captureIo();
    expect(await runCli(['strings', SAMPLE, SAMPLE], two.io)).toBe(2);
    expect(two.err).toMatch(/^error usage\/bad-argument: strings takes exactly one FILE\n/);
  });

  it('is listed in --help', async () => {
    const c = captureIo();
    expect(await runCli(['--help'], c.io)).toBe(0);
    expect(c.out).toMatch(/^ {2}strings +Duplicate strings of a process dump: per distinct value, copies, wasted bytes \(all copies but one\) and total bytes\.$/m);
  });
});
