import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { LINK_BYTES, writeChainGcdump } from '../helpers/chain-heap.js';
import { tinyGraph } from '../helpers/graph-builder.js';

// The CLI against hostile input (issue 13): special files, names with control characters, a
// dominator tree millions of levels deep. Each case ends in one coded error line or clean output.

const dir = mkdtempSync(join(tmpdir(), 'heapscope-hostile-'));
const fifo = join(dir, 'stuck.fifo');
afterAll(() => {
  // Release any reader an old build left blocked on the FIFO, so the worker can exit.
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // no reader: nothing to release
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI in-process, keeping every write separately (to see how output is chunked). */
async function run(...argv: string[]) {
  const outWrites: string[] = [];
  let err = '';
  const code = await runCli(argv, { stdout: { write: (s: string) => void outWrites.push(s) }, stderr: { write: (s: string) => void (err += s) } });
  return { code, out: outWrites.join(''), outWrites, err };
}

/** Anything a terminal would act on; table/text output may only hold printable text and \n. */
const TERMINAL_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe.skipIf(process.platform === 'win32')('special files get io/not-a-file at once', () => {
  it.each(['info', 'report', 'dominators', 'domains', 'gc-timeline', 'generations'])('%s on a FIFO with no writer', { timeout: 15_000 }, async (cmd) => {
    if (!existsSync(fifo)) execFileSync('mkfifo', [fifo]);
    const r = await run(cmd, fifo);
    expect([r.code, r.out, r.err]).toEqual([3, '', `error io/not-a-file: ${fifo} is a FIFO (named pipe), not a snapshot file\n`]);
  });

  it('a directory, a character device, and both sides of diff', async () => {
    expect((await run('info', dir)).err).toBe(`error io/not-a-file: ${dir} is a directory, not a snapshot file\n`);
    for (const dev of ['/dev/zero', '/dev/null'].filter(existsSync)) {
      const r = await run('report', dev);
      expect([r.code, r.err]).toEqual([3, `error io/not-a-file: ${dev} is a character device, not a snapshot file\n`]);
    }
    const ok = join(dir, 'ok.gcdump');
    writeChainGcdump(ok, { chain: 3 });
    const r = await run('diff', ok, dir);
    expect([r.code, r.err]).toEqual([3, `error io/not-a-file: ${dir} is a directory, not a snapshot file\n`]);
  });
});

describe('control characters in names are escaped in table/text output and in errors', () => {
  // A file name that tries to clear the screen and forge an error line, and type names that do.
  const evilName = 'x\x1b[2J\nerror fake-code: y.gcdump';
  const evil = join(dir, evilName);
  const graph = tinyGraph((b) => {
    b.root('[static\x1b[1m vars]').ref('A');
    b.node('A', 16, 'Evil\x1b[2J\x1b[HType').ref('B');
    b.node('B', 8, 'Forge\nerror fake/code: owned').ref('C');
    b.node('C', 8, 'Csi\x9b31mRed\u202eoN');
  }).graph;
  writeFileSync(evil, Buffer.concat(writeGcdump(graph)));
  const escapedFile = 'x\\x1b[2J\\nerror fake-code: y.gcdump';
  const names = ['Evil\\x1b[2J\\x1b[HType', 'Forge\\nerror fake/code: owned', 'Csi\\x9b31mRed\\u{202e}oN'];

  it.each([
    [['info'], [escapedFile, '[static\\x1b[1m vars]']],
    [['report', '--top', '0'], [escapedFile, ...names]],
    [['dominators', '--depth', '9'], [escapedFile, ...names]],
    [['paths', '--type', 'Csi'], ['Csi\\x9b31mRed\\u{202e}oN: 1 instance', names[1], names[0]]],
    [['paths', '--address', '0x1030'], ['Forge\\nerror fake/code: owned 0x1030 (8 bytes)', 'via [static\\x1b[1m vars]']],
    [['generations'], [escapedFile]],
    [['diff', evil, '--all'], [`base ${escapedFile} → new ${escapedFile}`, ...names]],
    [['trend', evil], [`${escapedFile} → ${escapedFile}`]],
  ])('%j', async (argv, expected) => {
    const [cmd, ...flags] = argv;
    const r = await run(cmd, evil, ...flags);
    expect([r.code, r.err]).toEqual([0, '']);
    expect(r.out).not.toMatch(TERMINAL_CONTROL);
    for (const e of expected) expect(r.out).toContain(e);
  });

  it('JSON and CSV keep the exact names', async () => {
    const j = await run('report', evil, '--top', '0', '--format', 'json');
    const types = (JSON.parse(j.out) as { type: string }[]).map((row) => row.type).sort();
    expect(types).toEqual(['Csi\x9b31mRed\u202eoN', 'Evil\x1b[2J\x1b[HType', 'Forge\nerror fake/code: owned']);
    const c = await run('dominators', evil, '--format', 'csv');
    expect(c.out).toContain(',"Forge\nerror fake/code: owned",');
    expect(c.out).toContain(',Evil\x1b[2J\x1b[HType,');
  });

  it('an error naming the file is one line, so it cannot forge a second error line', async () => {
    const missing = join(dir, 'gone\nerror fake/code: forged\x1b[2J.gcdump');
    const r = await run('info', missing);
    expect([r.code, r.out]).toEqual([3, '']);
    expect(r.err).toBe(`error io/not-found: no such file: ${dir}/gone\\nerror fake/code: forged\\x1b[2J.gcdump\n`);
  });

  it('a usage error listing type names keeps one name per line, each escaped', async () => {
    const r = await run('paths', evil, '--type', 'e');
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toEqual([
      'error usage/bad-argument: "e" matches 3 types; use the exact name:',
      `  ${names[2]}`,
      `  ${names[0]}`,
      `  ${names[1]}`,
      expect.stringMatching(/^usage: heapscope paths FILE/),
      '',
    ]);
    const arg = await run('report', evil, '--top', '1\x1b[2J\nerror fake/code: x');
    expect(arg.err.split('\n')[0]).toBe('error usage/bad-argument: --top must be a whole number (got "1\\x1b[2J\\nerror fake/code: x")');
    expect(arg.err.split('\n')).toHaveLength(3);
  });

  it('a threshold breach naming a crafted type is one line', async () => {
    const r = await run('report', evil, '--fail-if-retained', 'Forge\nerror fake/code: owned=1');
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/^threshold exceeded: Forge\\nerror fake\/code: owned retained [^\n]+\n$/);
  });

  describe('a Compact Framework heap log with escape sequences in AppDomain and type names', () => {
    const log = join(dir, 'evil.gclog');
    writeFileSync(log, ['a 2 dom\x1b[2Jain.exe 100', 't 1 T\x1b]0;pwned\x07ype', 'o 1 1 4', 'r 1 1 0', 'c dom\x1b[2Jain.exe 180', ''].join('\n'));

    it.each([[['domains']], [['report']], [['info']], [['dominators']]])('%j', async (argv) => {
      const r = await run(argv[0], log, ...argv.slice(1));
      expect([r.code, r.err]).toEqual([0, '']);
      expect(r.out).not.toMatch(TERMINAL_CONTROL);
      expect(r.out).toContain(argv[0] === 'domains' || argv[0] === 'info' ? 'dom\\x1b[2Jain.exe' : 'T\\x1b]0;pwned\\x07ype');
    });

    it('an unknown --domain lists the sections on the one escaped error line', async () => {
      const r = await run('info', log, '--domain', 'nope');
      expect(r.code).toBe(3);
      expect(r.err).toBe('error usage/bad-argument: evil.gclog has no AppDomain section "nope" (sections: 0: dom\\x1b[2Jain.exe)\n');
    });
  });
});

describe('dominators --depth on a long chain streams every level', () => {
  const n = 300_000;
  const chain = join(dir, 'chain.gcdump');
  writeChainGcdump(chain, { chain: n });
  const maxWrite = (writes: string[]) => writes.reduce((m, w) => Math.max(m, w.length), 0);

  it('table: all n + 2 rows (no stack overflow), indentation capped, written in bounded pieces', { timeout: 60_000 }, async () => {
    const r = await run('dominators', chain, '--depth', String(n + 5));
    expect([r.code, r.err]).toEqual([0, '']);
    const lines = r.out.split('\n');
    expect(lines.length).toBe(2 + 2 + (n + 2) + 1);
    expect(lines[0]).toBe(`chain.gcdump: ${(n + 2).toLocaleString('en-US')} reachable nodes, ${(n * LINK_BYTES).toLocaleString('en-US')} bytes reachable; 0 unreachable nodes (0 bytes) are not in the tree`);
    // Depth is n + 1 at the tail; its Type cell is indented 40 levels (80 spaces), not n + 1.
    const tail = lines[lines.length - 2];
    expect(tail.startsWith((n + 1).toLocaleString('en-US') + '  ' + ' '.repeat(80) + 'Chain.Link  0x')).toBe(true);
    expect(tail).toMatch(/ 24 +24 +0\.00$/);
    expect(maxWrite(r.outWrites)).toBeLessThan(70_000);
  });

  it('json: every row, retained sizes exact, never one giant string', { timeout: 60_000 }, async () => {
    const r = await run('dominators', chain, '--depth', String(n + 5), '--format', 'json');
    expect([r.code, r.err]).toEqual([0, '']);
    expect(maxWrite(r.outWrites)).toBeLessThan(70_000);
    const rows = JSON.parse(r.out) as { depth: number; node: number; parent: number | null; retainedSize: number; childCount: number; hiddenChildren: number }[];
    expect(rows.length).toBe(n + 2);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row.depth !== i || row.node !== i || row.parent !== (i === 0 ? null : i - 1)) throw new Error(`row ${i}: ${JSON.stringify(row)}`);
      if (row.retainedSize !== LINK_BYTES * (i < 2 ? n : n + 2 - i)) throw new Error(`row ${i}: retained ${row.retainedSize}`);
    }
    expect(rows[n + 1]).toMatchObject({ childCount: 0, hiddenChildren: 0 });
  });

  it('a depth cut hides the rest of the chain in the last row', async () => {
    const r = await run('dominators', chain, '--depth', '1000', '--format', 'csv');
    const lines = r.out.trimEnd().split('\r\n');
    expect(lines.length).toBe(1 + 1001);
    expect(lines[1001]).toBe(`1000,1000,999,Chain.Link,0x${(0x10000 + 32 * 1000).toString(16)},24,${LINK_BYTES * (n + 2 - 1000)},${Math.round(((n + 2 - 1000) / n) * 10000) / 100},1,1,${LINK_BYTES * (n + 1 - 1000)},false`);
  });
});

describe('an output too large for one JavaScript string', () => {
  it('is one coded line and exit 3, not an internal error', async () => {
    const file = join(dir, 'small.gcdump');
    writeChainGcdump(file, { chain: 3 });
    let err = '';
    const stdout = {
      write() {
        throw new RangeError('Invalid string length'); // what V8 throws past ~2^29 characters
      },
    };
    const code = await runCli(['report', file, '--format', 'json'], { stdout, stderr: { write: (s: string) => void (err += s) } });
    expect([code, err]).toEqual([3, 'error worker/out-of-memory: the output is too large to build as one string; try --format csv or a smaller --top / --depth\n']);
  });
});

describe('paths --address along a long chain', () => {
  it('indents at most 40 levels, so the table grows linearly with the path (quadratic before)', { timeout: 60_000 }, async () => {
    const n = 12_000;
    const chain = join(dir, 'path-chain.gcdump');
    writeChainGcdump(chain, { chain: n });
    const r = await run('paths', chain, '--address', `0x${(0x10000 + 32 * (n + 1)).toString(16)}`);
    expect([r.code, r.err]).toEqual([0, '']);
    const lines = r.out.split('\n');
    expect(lines[0]).toBe(`Chain.Link 0x${(0x10000 + 32 * (n + 1)).toString(16)} (24 bytes)`);
    expect(lines[2]).toBe(`path 1 of 1: ${n + 1} references, via [static vars]`);
    expect(lines.length).toBe(3 + 2 + (n + 2) + 3);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThan(120);
  });
});
