import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { captureIo } from '../helpers/capture-io.js';
import type { SyntheticHeap } from '../helpers/heap-trace.js';
import { writeHeapTrace } from '../helpers/heap-trace.js';

/**
 * `convert` writes a trace's dependent handles (ConditionalWeakTable entries) as key → value
 * references, so the .gcdump gives the trace's dominators (issue 13 item 6).
 */
const dir = mkdtempSync(join(tmpdir(), 'heapscope-handles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  return { code, out: c.out, err: c.err };
}

const MOD = 0x10;
// static s_keys → KeyList → Key1, Key2; dependent handles Key1 → Value1 (→ Payload), Key2 → Value2.
const heap: SyntheticHeap = {
  modules: [{ id: MOD, path: '/app/App.dll' }],
  types: [
    { id: 0x100, module: MOD, name: 'App.KeyList' },
    { id: 0x200, module: MOD, name: 'App.CwtKey' },
    { id: 0x300, module: MOD, name: 'App.CwtValue' },
    { id: 0x400, module: MOD, name: 'System.Byte[]' },
  ],
  objects: [
    { address: 0x1000, size: 40, type: 0x100, refs: [0x1100, 0x1200] },
    { address: 0x1100, size: 24, type: 0x200, refs: [] },
    { address: 0x1200, size: 24, type: 0x200, refs: [] },
    { address: 0x1300, size: 32, type: 0x300, refs: [0x1500] },
    { address: 0x1400, size: 32, type: 0x300, refs: [] },
    { address: 0x1500, size: 224, type: 0x400, refs: [] },
  ],
  roots: [],
  statics: [{ object: 0x1000, type: 0x100, field: 's_keys' }],
  dependent: [
    { key: 0x1100, value: 0x1300 },
    { key: 0x1200, value: 0x1400 },
  ],
};

describe('heapscope convert: dependent handles survive as references', () => {
  it('gives the same dominator rows from the .gcdump as from the trace, with each value under its key', async () => {
    const input = join(dir, 'cwt.nettrace');
    const output = join(dir, 'cwt.gcdump');
    writeFileSync(input, writeHeapTrace(heap));
    expect((await cli('convert', input, '-o', output)).code).toBe(0);
    const rows = async (file: string) => {
      const r = await cli('dominators', file, '--format', 'json', '--depth', '10');
      expect(r.code).toBe(0);
      return JSON.parse(r.out) as { depth: number; type: string; retainedSize: number }[];
    };
    const fromDump = await rows(output);
    expect(fromDump).toEqual(await rows(input));
    expect(fromDump.map((r) => `${r.depth} ${r.type} ${r.retainedSize}`)).toEqual([
      '0 [.NET Roots] 376',
      '1 [static vars] 376',
      '2 [static var App.KeyList.s_keys] 376',
      '3 App.KeyList 376',
      '4 App.CwtKey 280',
      '5 App.CwtValue 256',
      '6 System.Byte[] 224',
      '4 App.CwtKey 56',
      '5 App.CwtValue 32',
      '1 [other roots] 0',
      '2 [Dependent Handles] 0',
      '1 [COM/WinRT Objects] 0',
    ]);
    const info = await cli('info', output, '--format', 'json');
    expect((JSON.parse(info.out) as { warnings: { code: string }[] }).warnings.map((w) => w.code)).not.toContain('dependent-roots');
  });
});
