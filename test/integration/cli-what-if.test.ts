import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { captureIo } from '../helpers/capture-io.js';

// `--ignore-type` / `--ignore-root` ("what if", issue 16) on report and dominators, on the bundled
// sample. Each figure is checked against the same command without the flag: ignoring what only one
// dominator subtree hangs from frees exactly that subtree's retained size.
const SAMPLE = join(__dirname, '../../electron/resources/sample.gcdump');

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}

async function json<T>(...argv: string[]): Promise<T> {
  const r = await cli(...argv, '--format', 'json');
  expect(r.err).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.out) as T;
}

interface DomRow {
  depth: number;
  type: string;
  retainedSize: number;
  shallowSize: number;
}
interface ReportRow {
  type: string;
  count: number;
  shallowSize: number;
  retainedSize: number;
  unreachableCount: number;
  unreachableSize: number;
  setRetainedSize?: number;
}

describe('heapscope report/dominators --ignore-type/--ignore-root', () => {
  it('--ignore-type: the subscriber delegates keep nothing alive; the 150 ReportViews become unreachable', async () => {
    const before = await json<DomRow[]>('dominators', SAMPLE, '--depth', '2', '--top', '10');
    const multicast = before.find((r) => r.depth === 2 && r.type === 'System.Action<SampleShop.Product>')!;
    expect([multicast.retainedSize, multicast.shallowSize]).toEqual([178_536, 64]);
    const after = await json<DomRow[]>('dominators', SAMPLE, '--depth', '1', '--ignore-type', 'System.Action<SampleShop.Product>');
    // everything the multicast delegate retained but itself
    expect(after[0].retainedSize).toBe(before[0].retainedSize - (178_536 - 64));
    expect(after[0].retainedSize).toBe(5_840_166);

    const [view] = await json<ReportRow[]>('report', SAMPLE, '--filter', 'SampleShop.ReportView', '--set-retained');
    expect([view.retainedSize, view.setRetainedSize, view.unreachableCount]).toEqual([166_800, 166_800, 0]);
    const [ignored] = await json<ReportRow[]>('report', SAMPLE, '--filter', 'SampleShop.ReportView', '--ignore-type', 'System.Action<SampleShop.Product>');
    expect([ignored.retainedSize, ignored.unreachableCount, ignored.unreachableSize]).toEqual([0, 150, view.shallowSize]);
  });

  it('--ignore-root: ignoring [finalizer Handles] frees exactly what that category dominated', async () => {
    const before = await json<DomRow[]>('dominators', SAMPLE, '--depth', '2', '--top', '10');
    const fin = before.find((r) => r.type === '[finalizer Handles]')!;
    expect(fin.retainedSize).toBe(40);
    for (const name of ['[finalizer Handles]', '[other roots]/[finalizer Handles]']) {
      const after = await json<DomRow[]>('dominators', SAMPLE, '--depth', '0', '--ignore-root', name);
      expect(after[0].retainedSize).toBe(before[0].retainedSize - 40);
    }
    // two flags combine: the statics and the finalizer queue
    const both = await json<DomRow[]>('dominators', SAMPLE, '--depth', '1', '--ignore-root', '[static vars]', '--ignore-root', '[finalizer Handles]');
    expect(both.some((r) => r.type === 'SampleShop.PriceFeed')).toBe(false);
  });

  it('says in the table what it ignored', async () => {
    const r = await cli('report', SAMPLE, '--top', '3', '--ignore-root', '[static vars]');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^what if: [\d,]+ references ignored \(root \[static vars\]\); every figure below is computed without them$/m);
    const d = await cli('dominators', SAMPLE, '--depth', '1', '--ignore-type', 'SampleShop.PriceFeed');
    expect(d.out).toContain('what if: 1 reference ignored (references from SampleShop.PriceFeed)');
  });

  it('a name that matches nothing is a usage error (exit 2) naming the root categories', async () => {
    const t = await cli('report', SAMPLE, '--ignore-type', 'No.Such.Type');
    expect(t.code).toBe(2);
    expect(t.err).toContain('usage/bad-argument: --ignore-type: no type named No.Such.Type in this snapshot');
    const r = await cli('dominators', SAMPLE, '--ignore-root', '[nope]');
    expect(r.code).toBe(2);
    expect(r.err).toContain('no root category named [nope]');
    expect(r.err).toContain('[other roots]/[finalizer Handles]');
  });
});
