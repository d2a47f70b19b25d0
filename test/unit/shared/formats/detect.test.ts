import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DETECT_BYTES, detectFormat } from '../../../../shared/formats/detect.js';
import { writeGcdump } from '../../../../shared/formats/gcdump/gcdump-writer.js';
import { fixturePath, NO_FIXTURES } from '../../../helpers/fixtures.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { mulberry32 } from '../../../helpers/random-graph.js';

const head = (path: string): Uint8Array => new Uint8Array(readFileSync(path)).subarray(0, DETECT_BYTES);
const text = (s: string): Uint8Array => new TextEncoder().encode(s);
const gcdumpDir = fixturePath('gcdump');
const nettraceDir = fixturePath('nettrace');

describe('detectFormat', () => {
  describe.skipIf(!gcdumpDir)(`gcdump fixtures (${gcdumpDir ? 'present' : NO_FIXTURES})`, () => {
    it('recognises every .gcdump, and not the XML baseline next to them', () => {
      const files = readdirSync(gcdumpDir!).sort();
      const got = Object.fromEntries(files.map((f) => [f, detectFormat(head(join(gcdumpDir!, f)))]));
      expect(got).toEqual({
        'mono_android_20231108_150515_31024.gcdump': 'gcdump',
        'mono_android_20231108_150644_31024.gcdump': 'gcdump',
        'monovm_ios_sample.gcdump': 'gcdump',
        'perfview_test1.gcdump': 'gcdump',
        'perfview_test1_baseline.gcdump.xml': 'unknown',
        'perfview_test2.gcdump': 'gcdump',
      });
    });
  });

  describe.skipIf(!nettraceDir)(`nettrace fixtures (${nettraceDir ? 'present' : NO_FIXTURES})`, () => {
    it('recognises NetTrace v4/v5 and bare-FastSerialization NetPerf v3 as nettrace', () => {
      const files = readdirSync(nettraceDir!).filter((f) => !f.endsWith('.txt')).sort();
      const got = Object.fromEntries(files.map((f) => [f, detectFormat(head(join(nettraceDir!, f)))]));
      expect(got).toEqual({
        'eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf': 'nettrace',
        'eventpipe-dotnetcore2.1-win-x86-objver3.netperf': 'nettrace',
        'eventpipe-dotnetcore3.0-win-x64-objver4.nettrace': 'nettrace',
        'eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace': 'nettrace',
        'eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace': 'nettrace',
      });
    });

    it('does not mistake the UTF-8 baseline texts for a heap log', () => {
      for (const f of readdirSync(nettraceDir!).filter((n) => n.endsWith('.txt'))) expect(detectFormat(head(join(nettraceDir!, f))), f).toBe('unknown');
    });
  });

  it('recognises what our own writer produces, even from only its first 24 bytes', () => {
    const bytes = writeGcdump(tinyGraph((b) => b.root('[static vars]').ref('A')).graph)[0];
    expect(detectFormat(bytes)).toBe('gcdump');
    expect(detectFormat(bytes.subarray(0, 24))).toBe('gcdump');
    expect(detectFormat(bytes.subarray(0, 23))).toBe('unknown');
  });

  it('tells a NetTrace magic from a gcdump header', () => {
    expect(detectFormat(text('Nettrace'))).toBe('nettrace');
    const netperf = new Uint8Array(64);
    netperf.set([20, 0, 0, 0, ...text('!FastSerialization.1'), 4, 4, 1, 3, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, ...text('Trace')]);
    expect(detectFormat(netperf)).toBe('nettrace');
    netperf.set(text('GCHeapDumpX').subarray(0, 5), 39);
    netperf[35] = 10;
    expect(detectFormat(netperf)).toBe('gcdump');
  });

  it('recognises a Compact Framework heap log by its first record', () => {
    expect(detectFormat(text('a 2 MyApp.exe\r\nt 1a System.String\r\n'))).toBe('cf-heaplog');
  });

  it.each([
    ['empty', new Uint8Array(0)],
    ['plain text', text('Hello, this is a README file.\nIt has lines.\n')],
    ['JSON', text('{"snapshot":{"meta":{}},"nodes":[1,2,3]}')],
    ['a wrong FastSerialization length', new Uint8Array([21, 0, 0, 0, ...text('!FastSerialization.1')])],
    ['a misspelt magic', new Uint8Array([20, 0, 0, 0, ...text('!FastSerialization.2'), 4])],
    ['zeros', new Uint8Array(4096)],
  ])('says unknown for %s', (_, bytes) => {
    expect(detectFormat(bytes)).toBe('unknown');
  });

  it('never throws on seeded random garbage', () => {
    const rnd = mulberry32(99);
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const bytes = Uint8Array.from({ length: Math.floor(rnd() * 5000) }, () => Math.floor(rnd() * 256));
      seen.add(detectFormat(bytes));
    }
    expect([...seen]).toEqual(['unknown']);
  });
});
