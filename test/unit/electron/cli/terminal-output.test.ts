import { describe, expect, it } from 'vitest';
import { formatNumber, renderRows, renderTable, type Column } from '../../../../electron/cli/output.js';
import { streamRows } from '../../../../electron/cli/stream-rows.js';
import { escapeControl } from '../../../../electron/cli/terminal-text.js';
import { mulberry32 } from '../../../helpers/prng.js';

// Terminal safety of table/text output and the streamed row writer that must print exactly the
// bytes of renderRows (output.ts) in bounded pieces.

describe('escapeControl', () => {
  it('writes every control, separator and bidi-override character as a visible escape', () => {
    expect(escapeControl('Evil\x1b[2J\x1b[HType')).toBe('Evil\\x1b[2J\\x1b[HType');
    expect(escapeControl('a\nerror fake/code: b')).toBe('a\\nerror fake/code: b');
    expect(escapeControl('\r\t\0\x7f\x9b')).toBe('\\r\\t\\x00\\x7f\\x9b');
    expect(escapeControl('x\u2028y\u2029z\u202eA\u2066')).toBe('x\\u{2028}y\\u{2029}z\\u{202e}A\\u{2066}');
  });

  it('leaves printable text, including non-ASCII and backslashes, as it is', () => {
    for (const s of ['Dictionary`2[[System.String, mscorlib]]', 'Spielä.exe', 'C:\\dumps\\a.gcdump', '日本語', '']) expect(escapeControl(s)).toBe(s);
  });

  it('fuzz: no control character survives, and without backslashes in the input the escape is reversible', () => {
    const unescape = (e: string) =>
      e.replace(/\\(x[0-9a-f]{2}|u\{[0-9a-f]+\}|[nrt])/g, (_, m: string) =>
        m === 'n' ? '\n' : m === 'r' ? '\r' : m === 't' ? '\t' : String.fromCodePoint(parseInt(m.replace(/[xu{}]/g, ''), 16)),
      );
    const rnd = mulberry32(13);
    let changed = 0;
    for (let k = 0; k < 2000; k++) {
      const chars: number[] = [];
      const len = Math.floor(rnd() * 12);
      for (let i = 0; i < len; i++) chars.push(rnd() < 0.5 ? Math.floor(rnd() * 0xa0) : 0x20 + Math.floor(rnd() * 0x2100));
      const s = String.fromCharCode(...chars.map((c) => (c === 0x5c ? 0x5d : c)));
      const e = escapeControl(s);
      expect(e).not.toMatch(/[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
      expect(unescape(e)).toBe(s);
      if (e !== s) changed++;
    }
    expect(changed).toBeGreaterThan(1000);
  });
});

interface Row {
  n: number | null;
  s: string | undefined;
  b: boolean;
}
const COLS: Column<Row>[] = [
  { header: 'Number', key: 'n', value: (r) => r.n, numeric: true },
  { header: 'Name', key: 's', value: (r) => r.s },
  { header: 'Flag', key: 'b', value: (r) => r.b },
];

describe('table output', () => {
  it('escapes names in cells, so a crafted name is one visible row', () => {
    const rows: Row[] = [
      { n: 1234567, s: 'Forge\nerror fake/code: owned', b: true },
      { n: -5, s: '\x1b]0;title\x07', b: false },
    ];
    expect(renderTable(rows, COLS)).toBe(
      [
        '   Number  Name                           Flag',
        '---------  -----------------------------  -----',
        '1,234,567  Forge\\nerror fake/code: owned  true',
        '       -5  \\x1b]0;title\\x07               false',
        '',
      ].join('\n'),
    );
  });

  it('sizes columns of 300,000 rows without spreading them into Math.max (stack overflow before)', () => {
    const rows: Row[] = Array.from({ length: 300_000 }, (_, i) => ({ n: i, s: i === 123_456 ? 'the longest name' : 'x', b: false }));
    const lines = renderTable(rows, COLS).split('\n');
    expect(lines.length).toBe(300_003);
    expect(lines[0]).toBe(' Number  Name              Flag');
    expect(lines[2 + 123_456]).toBe('123,456  the longest name  false');
  });
});

describe('formatNumber', () => {
  it('matches Intl en-US grouping (at most two decimals) on random values', () => {
    const intl = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
    const rnd = mulberry32(7);
    const specials = [0, -0, 1, -1, 999, 1000, -1000, 999_999, 1_000_000, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, 1e21, 0.005, 12.345, NaN, Infinity];
    for (const v of specials) expect(formatNumber(v)).toBe(intl.format(v));
    for (let k = 0; k < 5000; k++) {
      const digits = Math.floor(rnd() * 16);
      const v = Math.floor(rnd() * 10 ** digits) * (rnd() < 0.2 ? -1 : 1);
      expect(formatNumber(v)).toBe(intl.format(v));
      const f = (rnd() - 0.5) * 10 ** Math.floor(rnd() * 10);
      expect(formatNumber(f)).toBe(intl.format(f));
    }
  });
});

describe('streamRows', () => {
  const capture = () => {
    const writes: string[] = [];
    return { out: { write: (s: string) => void writes.push(s) }, writes, text: () => writes.join('') };
  };

  const randomRows = (seed: number, count: number): Row[] => {
    const rnd = mulberry32(seed);
    const names = ['A', 'System.String', 'quote " and, comma', 'line\nbreak', '\x1b[2J', '=SUM(A1)', '', 'ünï'];
    return Array.from({ length: count }, () => ({
      n: rnd() < 0.1 ? null : rnd() < 0.1 ? Infinity : rnd() < 0.5 ? Math.floor(rnd() * 1e9) : Math.round(rnd() * 1e4) / 100,
      s: rnd() < 0.1 ? undefined : names[Math.floor(rnd() * names.length)],
      b: rnd() < 0.5,
    }));
  };

  it.each(['table', 'csv', 'json'] as const)('writes exactly the bytes of renderRows (%s), for 0, 1 and many rows', async (format) => {
    for (const [seed, count] of [
      [1, 0],
      [2, 1],
      [3, 57],
      [4, 5000],
    ]) {
      const rows = randomRows(seed, count);
      const c = capture();
      await streamRows(c.out, format, () => rows, COLS);
      expect(c.text()).toBe(renderRows(format, rows, COLS));
    }
  });

  it('writes in pieces of about 64 K characters, not one string for the whole output', async () => {
    const rows = randomRows(5, 40_000);
    const c = capture();
    await streamRows(c.out, 'json', () => rows, COLS);
    expect(c.text()).toBe(renderRows('json', rows, COLS));
    expect(c.text().length).toBeGreaterThan(2_000_000);
    expect(Math.max(...c.writes.map((w) => w.length))).toBeLessThan(65_536 + 200);
  });

  it('waits for drain when the stream asks for it', async () => {
    const events: string[] = [];
    const listeners = new Map<string, () => void>();
    const stream = {
      write(s: string) {
        events.push(`write ${s.length > 100 ? 'chunk' : s}`);
        return false;
      },
      once(ev: string, f: () => void) {
        listeners.set(ev, f);
      },
      removeListener(ev: string) {
        listeners.delete(ev);
      },
    };
    const rows = randomRows(6, 20_000);
    const done = streamRows(stream, 'csv', () => rows, COLS);
    await new Promise((r) => setTimeout(r, 20));
    expect(events).toEqual(['write chunk']); // blocked until 'drain'
    while (listeners.has('drain')) {
      listeners.get('drain')!();
      await new Promise((r) => setTimeout(r, 5));
    }
    await done;
    expect(events.length).toBeGreaterThan(1);
    expect(listeners.size).toBe(0);
  });
});
