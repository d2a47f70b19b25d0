import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import '../../../../../shared/formats/all-readers.js';
import { detectFormat } from '../../../../../shared/formats/detect.js';
import { readSnapshot } from '../../../../../shared/formats/read-snapshot.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { FIXTURES_DIR, NO_FIXTURES, fixturePath } from '../../../../helpers/fixtures.js';
import { sampleHeap, writeHeapTrace } from '../../../../helpers/heap-trace.js';
import { ByteWriter } from '../../../../helpers/nettrace-writer.js';

describe('EventPipe detection and the registered reader', () => {
  it('recognises NetTrace, NetPerf (Trace object) and the obsolete EventPipeFile stream', () => {
    expect(detectFormat(writeHeapTrace(sampleHeap()).subarray(0, 4096))).toBe('nettrace');
    const fs = () => new ByteWriter().i32(20).ascii('!FastSerialization.1').u8(4).u8(4).u8(1).i32(3).i32(0);
    expect(detectFormat(fs().i32(5).ascii('Trace').u8(6).result())).toBe('nettrace');
    expect(detectFormat(fs().i32(38).ascii('Microsoft.DotNet.Runtime.EventPipeFile').u8(6).result())).toBe('nettrace');
    expect(detectFormat(fs().i32(10).ascii('GCHeapDump').u8(6).result())).toBe('gcdump');
  });

  it('opens a heap-dump trace through readSnapshot', async () => {
    const g = await readSnapshot(new MemoryByteSource(writeHeapTrace(sampleHeap()), 'x.nettrace'));
    expect(g.metadata.format).toBe('nettrace');
    expect(g.nodeCount).toBe(17);
  });

  describe.skipIf(!FIXTURES_DIR)(`fixtures${FIXTURES_DIR ? '' : ` (${NO_FIXTURES})`}`, () => {
    for (const f of ['eventpipe-dotnetcore2.1-win-x86-objver3.netperf', 'eventpipe-dotnetcore2.1-linux-x64-tracelogging.netperf', 'eventpipe-dotnetcore3.0-win-x64-objver4.nettrace']) {
      it.skipIf(!fixturePath(`nettrace/${f}`))(`detects ${f} as nettrace, which has no heap dump`, async () => {
        const bytes = new Uint8Array(readFileSync(fixturePath(`nettrace/${f}`)!));
        expect(detectFormat(bytes.subarray(0, 4096))).toBe('nettrace');
        if (bytes.length < 20_000) {
          await expect(readSnapshot(new MemoryByteSource(bytes, f))).rejects.toMatchObject({ code: 'format/no-heap-dump' });
        }
      });
    }
  });
});
