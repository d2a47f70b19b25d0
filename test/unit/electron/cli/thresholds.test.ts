import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../electron/cli/args.js';
import { evaluateThresholds, formatBytes, parseBytes, parseThreshold, retainedOfType } from '../../../../electron/cli/thresholds.js';

describe('parseBytes', () => {
  it('reads plain numbers and binary units, case-insensitively, with decimals', () => {
    expect(['500000', '512KB', '10mb', '1.5GB', '2 KiB', '3k', '7B', '.5MB'].map((s) => parseBytes(s, 'x'))).toEqual([
      500_000, 524_288, 10_485_760, 1_610_612_736, 2048, 3072, 7, 524_288,
    ]);
  });

  it('rejects anything else as a usage error naming the flag', () => {
    for (const bad of ['', '12XB', '-5', 'ten', '1e6', '1..2MB']) {
      expect(() => parseBytes(bad, 'fail-if-growth')).toThrow(UsageError);
    }
    expect(() => parseBytes('12XB', 'fail-if-growth')).toThrow(/--fail-if-growth: "12XB" is not a byte count/);
  });
});

describe('parseThreshold', () => {
  it('splits TYPE=BYTES at the last "=" and accepts * for the whole heap', () => {
    expect(parseThreshold('System.String=10MB', 'f')).toEqual({ type: 'System.String', bytes: 10_485_760, spec: 'System.String=10MB' });
    expect(parseThreshold('Weird=Name=1KB', 'f').type).toBe('Weird=Name');
    expect(parseThreshold('*=1', 'f')).toMatchObject({ type: '*', bytes: 1 });
  });

  it('needs both parts', () => {
    for (const bad of ['System.String', '=5', 'A=', ' =5']) expect(() => parseThreshold(bad, 'f')).toThrow(UsageError);
  });
});

describe('evaluateThresholds', () => {
  it('breaches only when the value is strictly greater, and notes absent types', () => {
    let notes = '';
    const out = { write: (s: string) => void (notes += s) };
    const values: Record<string, number> = { A: 100, B: 2048, '*': 5000 };
    const ts = ['A=100', 'B=1KB', '*=4KB', 'C=1'].map((s) => parseThreshold(s, 'fail-if-retained'));
    const b = evaluateThresholds(ts, (t) => values[t], 'retained size is', 'fail-if-retained', out);
    expect(b.map((x) => [x.threshold.type, x.actual])).toEqual([['B', 2048], ['*', 5000]]);
    expect(b[0].message).toBe('threshold exceeded: B retained size is 2,048 bytes (2 KB), over the limit of 1,024 bytes (1 KB) (--fail-if-retained B=1KB)');
    expect(b[1].message).toContain('the whole heap retained size is 5,000 bytes (4.88 KB)');
    expect(notes).toBe('note: --fail-if-retained C=1: no type named "C" (exact, case-sensitive name); nothing to check\n');
  });

  it('sums type rows that share a name', () => {
    const rows = [{ name: 'A', retainedSize: 5 }, { name: 'B', retainedSize: 7 }, { name: 'A', retainedSize: 11 }];
    expect([retainedOfType(rows, 'A', 99), retainedOfType(rows, '*', 99), retainedOfType(rows, 'Z', 99)]).toEqual([16, 99, undefined]);
  });

  it('formats bytes exactly, with a rounded unit from 1 KB up', () => {
    expect([formatBytes(1023), formatBytes(6840), formatBytes(-2048), formatBytes(3 * 1024 ** 3)]).toEqual([
      '1,023 bytes', '6,840 bytes (6.68 KB)', '-2,048 bytes (-2 KB)', '3,221,225,472 bytes (3 GB)',
    ]);
  });

  it('never gives 1,000 or more of a unit: it switches to the next one (issue 14 item 8)', () => {
    expect([formatBytes(1_024_205), formatBytes(1024 ** 2 - 1), formatBytes(1_023_990), formatBytes(1_023_996), formatBytes(1000 * 1024 ** 2)]).toEqual([
      '1,024,205 bytes (0.98 MB)', '1,048,575 bytes (1 MB)', '1,023,990 bytes (999.99 KB)', '1,023,996 bytes (0.98 MB)', '1,048,576,000 bytes (0.98 GB)',
    ]);
  });
});
