import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { InfoJson } from '../../electron/cli/commands/info.js';
import { runCli } from '../../electron/cli/main.js';
import '../../shared/formats/all-readers.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { readSnapshot, sniffFormat } from '../../shared/formats/read-snapshot.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { MemoryByteSource } from '../../shared/util/byte-source.js';
import { captureIo } from '../helpers/capture-io.js';
import { generateCfHeapLogText } from '../tools/gen-cf-heaplog.js';

// A generated two-AppDomain log on disk, read through the CLI (domains, info --domain) and
// converted to .gcdump and back. Known answers come from the generator.
const dir = mkdtempSync(join(tmpdir(), 'heapscope-cf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { text, sections } = generateCfHeapLogText({ objects: 1500, seed: 21 });
const logPath = join(dir, 'bubble.gclog');
writeFileSync(logPath, text);

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}

describe('heapscope domains', () => {
  it('lists the AppDomain sections (json)', async () => {
    const r = await cli('domains', logPath, '--format', 'json');
    expect([r.code, r.err]).toEqual([0, '']);
    expect(JSON.parse(r.out)).toEqual({
      file: 'bubble.gclog',
      sections: sections.map((s, index) => ({ index, name: s.name, objects: s.objects, startMs: s.startMs, endMs: s.endMs, durationMs: s.durationMs })),
    });
  });

  it('prints a table and refuses files that are not CF heap logs', async () => {
    const r = await cli('domains', logPath);
    expect(r.out.split('\n')[2]).toMatch(/^\s+0\s+bubblecs\.exe\s+1,500\s+/);
    const other = join(dir, 'other.txt');
    writeFileSync(other, 'hello world\n');
    const bad = await cli('domains', other);
    expect(bad.code).toBe(3);
    expect(bad.err).toBe('error usage/bad-argument: other.txt is not a snapshot; only Compact Framework heap logs have AppDomain sections\n');
  });
});

describe('heapscope info --domain', () => {
  it('opens the section chosen by index or name', async () => {
    for (const domain of ['1', 'BubbleGame.Plugins']) {
      const r = await cli('info', logPath, '--domain', domain, '--format', 'json');
      expect([r.code, r.err]).toEqual([0, '']);
      const i = JSON.parse(r.out) as InfoJson;
      expect([i.format, i.formatVersion, i.objectCount, i.totalSize, i.metadata.processName]).toEqual(['cf-heaplog', 'CF heap log v2', sections[1].objects, sections[1].totalSize, 'BubbleGame.Plugins']);
      expect(i.metadata.extra.sectionIndex).toBe(1);
      expect(i.rootName).toBe('[CF Roots]');
    }
  });

  it('defaults to the first section and points at the others', async () => {
    const r = await cli('info', logPath);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^process +bubblecs\.exe$/m);
    expect(r.out).toContain('2 AppDomain sections: list them with "heapscope domains bubble.gclog", open one with --domain NAME|INDEX');
  });

  it('fails with a coded error for an unknown domain', async () => {
    const r = await cli('info', logPath, '--domain', 'Nope.exe');
    expect(r.code).toBe(3);
    expect(r.err).toBe('error usage/bad-argument: bubble.gclog has no AppDomain section "Nope.exe" (sections: 0: bubblecs.exe, 1: BubbleGame.Plugins)\n');
  });
});

describe('heapscope report --domain', () => {
  it('reports the chosen section: object counts add up to the generator\'s answer', async () => {
    for (const [i, s] of sections.entries()) {
      const r = await cli('report', logPath, '--domain', String(i), '--format', 'json');
      expect([r.code, r.err]).toEqual([0, '']);
      const rows = JSON.parse(r.out) as { count: number; shallowSize: number }[];
      expect(rows.reduce((n, x) => n + x.count, 0)).toBe(s.objects);
      expect(rows.reduce((n, x) => n + x.shallowSize, 0)).toBe(s.totalSize);
    }
  });
});

describe('CF heap log → .gcdump round trip', () => {
  const concat = (chunks: Uint8Array[]): Uint8Array => {
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  };
  const counts = (g: HeapGraph) => ({
    nodes: g.nodeCount,
    edges: g.edgeCount,
    totalSize: g.totalSize,
    types: g.types.names,
    root: g.types.names[g.nodeType[g.rootIndex]],
    edgeTarget: Array.from(g.edgeTarget),
    selfSize: Array.from(g.selfSize),
    address: Array.from(g.address, (a) => a.toString(16)),
  });

  it.each([0, 1])('section %i converts to a .gcdump that reads back with identical counts', async (index) => {
    const log = await readSnapshot(new MemoryByteSource(new TextEncoder().encode(text)), { select: String(index) });
    expect(log.nodeCount).toBe(sections[index].objects + sections[index].pseudoNodes);
    const dump = new MemoryByteSource(concat(writeGcdump(log)), 'bubble.gcdump');
    expect(await sniffFormat(dump)).toBe('gcdump');
    const back = await readSnapshot(dump);
    expect(counts(back)).toEqual(counts(log));
  });
});

describe('heapscope convert on a CF heap log', () => {
  it.each([
    ['--domain', '1'],
    ['--select', 'BubbleGame.Plugins'],
  ])('writes the chosen section (%s %s) as a .gcdump that info reads back with identical counts', async (opt, value) => {
    const out = join(dir, `plugins-${opt.slice(2)}.gcdump`);
    const conv = await cli('convert', logPath, '-o', out, opt, value);
    expect([conv.code, conv.err]).toEqual([0, '']);
    const fromLog = JSON.parse((await cli('info', logPath, '--domain', '1', '--format', 'json')).out) as InfoJson;
    const fromDump = JSON.parse((await cli('info', out, '--format', 'json')).out) as InfoJson;
    expect(fromDump.format).toBe('gcdump');
    const pick = (i: InfoJson) => [i.nodeCount, i.edgeCount, i.typeCount, i.totalSize, i.rootName, i.rootsByCategory];
    expect(pick(fromDump)).toEqual(pick(fromLog));
    expect(fromLog.nodeCount).toBe(sections[1].objects + sections[1].pseudoNodes);
  });
});
