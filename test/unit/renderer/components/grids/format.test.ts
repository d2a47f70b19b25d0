import { describe, expect, it } from 'vitest';
import {
  exactBytes,
  formatAddress,
  formatBytes,
  formatCount,
  formatDuration,
  formatPercent,
  formatSignedBytes,
  formatSignedCount,
  formatCountOf,
  shortModuleName,
} from '../../../../../renderer/components/grids/format';

describe('formatCount', () => {
  it('groups thousands and rounds', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1,000');
    expect(formatCount(140391)).toBe('140,391');
    expect(formatCount(1234567.6)).toBe('1,234,568');
  });
  it('shows missing values as an em dash', () => {
    expect(formatCount(null)).toBe('—');
    expect(formatCount(undefined)).toBe('—');
    expect(formatCount(Number.NaN)).toBe('—');
  });
});

describe('formatBytes', () => {
  it('keeps exact bytes below 1,000 bytes', () => {
    expect(formatBytes(0)).toBe('0 bytes');
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(999)).toBe('999 bytes');
  });
  it('never prints 1,000 or more of a unit: it switches to the next one (issue 14 item 8)', () => {
    expect(formatBytes(1000)).toBe('0.98 KB');
    expect(formatBytes(1023)).toBe('1.00 KB');
    expect(formatBytes(1_024_000)).toBe('0.98 MB'); // exactly 1,000 KB
    expect(formatBytes(1_024_205)).toBe('0.98 MB'); // 1,000.2 KB, the example
    expect(formatBytes(999.95 * 1024)).toBe('0.98 MB'); // 999.95 KB would round to "1,000.0 KB"
    expect(formatBytes(999.94 * 1024)).toBe('999.9 KB');
    expect(formatBytes(1024 ** 2 - 1)).toBe('1.00 MB');
    expect(formatBytes(1000 * 1024 ** 2)).toBe('0.98 GB');
    expect(formatBytes(1023.99 * 1024 ** 3)).toBe('1.00 TB');
    expect(formatBytes(-1_024_205)).toBe('-0.98 MB');
    expect(formatSignedBytes(1_024_205)).toBe('+0.98 MB');
  });
  it('switches from two decimals to one on the rounded value', () => {
    expect(formatBytes(9.994 * 1024)).toBe('9.99 KB');
    expect(formatBytes(9.996 * 1024)).toBe('10.0 KB');
  });
  it('uses 1024-based units with two decimals below 10 and one above', () => {
    expect(formatBytes(1024)).toBe('1.00 KB');
    expect(formatBytes(1536)).toBe('1.50 KB');
    expect(formatBytes(1_009_270)).toBe('985.6 KB'); // perfview_test1 total: 1,009,270 / 1024 = 985.62
    expect(formatBytes(4_147_128)).toBe('3.96 MB'); // perfview_test2 total: 4,147,128 / 1024² = 3.955
    expect(formatBytes(10 * 1024 ** 3)).toBe('10.0 GB');
  });
  it('keeps the sign of negative sizes', () => {
    expect(formatBytes(-2048)).toBe('-2.00 KB');
  });
  it("'bytes' mode always shows the exact count", () => {
    expect(formatBytes(4_147_128, 'bytes')).toBe('4,147,128 bytes');
  });
  it('exactBytes is the tooltip text', () => {
    expect(exactBytes(4_147_128)).toBe('4,147,128 bytes');
    expect(exactBytes(null)).toBe('');
  });
});

describe('signed values for diffs', () => {
  it('prefixes gains with +', () => {
    expect(formatSignedCount(1024)).toBe('+1,024');
    expect(formatSignedCount(-3)).toBe('-3');
    expect(formatSignedCount(0)).toBe('0');
    expect(formatSignedBytes(33_792)).toBe('+33.0 KB');
    expect(formatSignedBytes(-812)).toBe('-812 bytes');
  });
});

describe('formatPercent', () => {
  it('has one decimal and flags tiny shares', () => {
    expect(formatPercent(1, 3)).toBe('33.3 %');
    expect(formatPercent(167_540, 1_009_270)).toBe('16.6 %');
    expect(formatPercent(1, 10_000)).toBe('<0.1 %');
    expect(formatPercent(0, 10)).toBe('0.0 %');
    expect(formatPercent(5, 0)).toBe('—');
  });
});

describe('formatDuration and formatAddress', () => {
  it('durations', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(0.42)).toBe('0.42 ms');
    expect(formatDuration(3.146)).toBe('3.15 ms');
    expect(formatDuration(10)).toBe('10 ms');
    expect(formatDuration(1250)).toBe('1.25 s');
    expect(formatDuration(125_000)).toBe('2 min 05 s');
  });
  it('addresses come as hex or decimal strings', () => {
    expect(formatAddress('0x6D1BE90')).toBe('0x6d1be90');
    expect(formatAddress('114409104')).toBe('0x6d1be90'); // 0x6d1be90 = 114,409,104
    expect(formatAddress(255)).toBe('0xff');
    expect(formatAddress(null)).toBe('—');
  });
});

describe('formatCountOf', () => {
  it('agrees the noun with the count', () => {
    expect(formatCountOf(1, 'type')).toBe('1 type');
    expect(formatCountOf(0, 'type')).toBe('0 types');
    expect(formatCountOf(3333, 'type')).toBe('3,333 types');
    expect(formatCountOf(1, 'problem')).toBe('1 problem');
  });
});

describe('shortModuleName', () => {
  it("shows a path's file name and an unnamed module's id by its last digits (issue 14 item 8)", () => {
    expect(shortModuleName('C:\\Windows\\Microsoft.NET\\mscorlib.dll')).toBe('mscorlib.dll');
    expect(shortModuleName('/data/data/app/files/.__override__/Mono.Android.dll')).toBe('Mono.Android.dll');
    expect(shortModuleName('Module(0x7ff000002000)')).toBe('Module(…002000)');
    expect(shortModuleName('Module(0x2000)')).toBe('Module(0x2000)');
    expect(shortModuleName(null)).toBe('');
  });
});
