import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { liveHelpers } from '../../electron/dump-reader/helper-process.js';
import { captureIo } from '../helpers/capture-io.js';
import type { RunningApp } from '../helpers/dotnet-app.js';
import { dumpDotnetApp, processDumpSkip, stopDumped } from '../helpers/process-dump.js';
import { peerMissing, peerTool } from '../helpers/peer-tools.js';

/**
 * Duplicate strings on a real process dump: StringsApp (test/dotnet/StringsApp) keeps known copies
 * of known strings; `heapscope dump` writes its core, `heapscope strings` reads it through the
 * ClrMD helper. Checked against the program's own numbers and against SOS
 * (`dotnet-dump analyze -c "dumpheap -strings -live"`, which counts and sizes live strings per value).
 *
 * A string's size on 64-bit (ClrMD and SOS agree): method table 8 + header 8 + length 4 +
 * 2 × (length + 1) chars = 22 + 2 × length bytes.
 */
const dotnetDump = peerTool('dotnet-dump');
const skip = processDumpSkip('dump tests');
const size = (length: number): number => 22 + 2 * length;

interface StringsDoc {
  file: string;
  minCount: number;
  valueCount: number;
  stringCount: number;
  stringBytes: number;
  wastedBytes: number;
  rows: { value: string; length: number; truncated: boolean; count: number; totalBytes: number; wastedBytes: number }[];
}

describe.skipIf(skip !== null)(`duplicate strings of a process dump (${skip ?? 'dotnet and the dump reader found'})`, () => {
  let app: RunningApp;
  let dir: string;
  let dump: string;
  let gcdump: string;
  let doc: StringsDoc;
  beforeAll(async () => {
    ({ dir, dump, app } = await dumpDotnetApp('StringsApp', { prefix: 'heapscope-strings-', file: 'strings.dmp', keepRunning: true }));
    // The .gcdump after the dump: its heap walk runs a GC, the dump must see the heap untouched.
    gcdump = join(dir, 'strings.gcdump');
    const c = captureIo();
    expect(await runCli(['collect', '-p', String(app.pid), '-o', gcdump], c.io), c.err).toBe(0);
    const j = captureIo();
    expect(await runCli(['strings', dump, '--format', 'json', '--min-count', '1'], j.io), j.err).toBe(0);
    doc = JSON.parse(j.out) as StringsDoc;
  }, 300_000);
  afterAll(async () => {
    if (app) await stopDumped(app);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('finds exactly the copies the program made, wasted = all copies but one, sorted by wasted bytes', () => {
    const ours = doc.rows.filter((r) => r.value.startsWith('heapscope-'));
    const long = 'heapscope-dup-C-' + 'c'.repeat(1024 - 16);
    expect(ours).toEqual([
      { value: 'heapscope-dup-A', length: 15, truncated: false, count: 5000, totalBytes: 5000 * size(15), wastedBytes: 4999 * size(15) },
      { value: 'heapscope-dup-B-' + 'b'.repeat(184), length: 200, truncated: false, count: 300, totalBytes: 300 * size(200), wastedBytes: 299 * size(200) },
      // 3,000 chars: the dump keeps the first 1,024 and the full length.
      { value: long, length: 3000, truncated: true, count: 20, totalBytes: 20 * size(3000), wastedBytes: 19 * size(3000) },
      // 1,000 array slots hold the one literal object: one copy, nothing wasted.
      { value: 'heapscope-literal-D', length: 19, truncated: false, count: 1, totalBytes: size(19), wastedBytes: 0 },
    ]);
    // "heapscope-dead-E" copies were dropped before the dump: unreachable, not counted.
    expect(doc.rows.find((r) => r.value === 'heapscope-dead-E')).toBeUndefined();
    expect(doc.rows.slice(0, 3).map((r) => r.value.slice(0, 15))).toEqual(['heapscope-dup-A', 'heapscope-dup-B', 'heapscope-dup-C']);
    expect(doc.stringCount).toBe(doc.rows.reduce((s, r) => s + r.count, 0));
    expect(doc.stringBytes).toBe(doc.rows.reduce((s, r) => s + r.totalBytes, 0));
    expect(liveHelpers()).toBe(0);
  });

  it('--top and --min-count cut the list; the table and CSV show the same rows', async () => {
    const j = captureIo();
    expect(await runCli(['strings', dump, '--format', 'json', '--top', '2', '--min-count', '300'], j.io)).toBe(0);
    const two = JSON.parse(j.out) as StringsDoc;
    expect(two.rows.map((r) => [r.value.slice(0, 15), r.count])).toEqual([
      ['heapscope-dup-A', 5000],
      ['heapscope-dup-B', 300],
    ]);
    expect(two.minCount).toBe(300);
    const csv = captureIo();
    expect(await runCli(['strings', dump, '--format', 'csv', '--top', '1'], csv.io)).toBe(0);
    expect(csv.out).toBe(`count,wastedBytes,totalBytes,length,value,truncated\r\n5000,${4999 * size(15)},${5000 * size(15)},15,heapscope-dup-A,false\r\n`);
    const t = captureIo();
    expect(await runCli(['strings', dump, '--top', '3'], t.io)).toBe(0);
    expect(t.out).toMatch(/^ *5,000 +259,948 +260,000 +15 +"heapscope-dup-A"$/m);
    expect(t.out).toMatch(/^ *20 +114,418 +120,440 +3,000 +"heapscope-dup-C-c+"…$/m);
  }, 120_000);

  it('`heapscope inspect` lists the same values as Duplicate strings findings (copies beyond the first)', async () => {
    const c = captureIo();
    expect(await runCli(['inspect', dump, '--format', 'json'], c.io)).toBe(0);
    const r = JSON.parse(c.out) as { findings: { kind: string; title: string; objects: number; bytes: number; shallowBytes: number }[]; unavailable: { kind: string }[] };
    const found = r.findings.filter((f) => f.kind === 'duplicate-strings' && f.title.includes('heapscope-'));
    expect(found.map((f) => [f.title.slice(0, 35), f.objects, f.bytes, f.shallowBytes])).toEqual([
      ['5,000 copies of "heapscope-dup-A" (', 4999, 4999 * size(15), 4999 * size(15)],
      ['300 copies of "heapscope-dup-B-bbbb', 299, 299 * size(200), 299 * size(200)],
      ['20 copies of "heapscope-dup-C-ccccc', 19, 19 * size(3000), 19 * size(3000)],
    ]);
    expect(r.unavailable.map((u) => u.kind)).not.toContain('duplicate-strings');
  }, 120_000);

  it('a .gcdump of the same process has no string contents: strings/needs-dump, exit 2', async () => {
    const c = captureIo();
    expect(await runCli(['strings', gcdump], c.io)).toBe(2);
    expect(c.err).toMatch(/^error strings\/needs-dump: strings\.gcdump is a gcdump file, which has no string contents: duplicate strings need a full process dump/);
    expect(c.out).toBe('');
  }, 120_000);

  it.skipIf(!dotnetDump)(`every printable value has the count and bytes SOS \`dumpheap -strings -live\` gives (${dotnetDump ? 'dotnet-dump found' : peerMissing('dotnet-dump')})`, () => {
    const sos = execFileSync(dotnetDump!, ['analyze', dump, '-c', 'dumpheap -strings -live', '-c', 'exit'], { encoding: 'utf8', timeout: 180_000 });
    // SOS prints the first 64 chars of each value, "." for chars it cannot print and its own
    // spelling for some others ("+" does not appear as itself), so only values of letters, digits
    // and plain punctuation, 2 chars or more, compare one to one.
    const printable = (v: string): boolean => /^[A-Za-z0-9_.,:;/()-][A-Za-z0-9 _.,:;/()-]*[A-Za-z0-9_.,:;/()-]$/.test(v);
    const expected = new Map<string, [number, number]>();
    for (const line of sos.split('\n')) {
      const m = /^\s+([\d,]+)\s+([\d,]+) (.+)$/.exec(line);
      if (m && printable(m[3])) expected.set(m[3], [Number(m[1].replace(/,/g, '')), Number(m[2].replace(/,/g, ''))]);
    }
    const got = new Map<string, [number, number]>();
    for (const r of doc.rows) {
      const key = r.value.slice(0, 64);
      if (!printable(key)) continue;
      const p = got.get(key) ?? [0, 0];
      got.set(key, [p[0] + r.count, p[1] + r.totalBytes]);
    }
    // How many runtime strings qualify depends on the runtime build; dozens do.
    expect(expected.size).toBeGreaterThan(20);
    expect(expected.get('heapscope-dup-A')).toEqual([5000, 5000 * size(15)]);
    expect(got).toEqual(expected);
  }, 200_000);
});
