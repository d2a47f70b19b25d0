import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileByteSource } from '../../../../electron/files/file-byte-source.js';
import { childStretchReader } from '../../../../electron/workers/stretch-reader.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';
import { CancelledError } from '../../../../shared/errors.js';
import { readCfHeapLog, readCfHeapLogFragment } from '../../../../shared/formats/cf-heaplog/cf-heaplog-reader.js';
import { CancellationSource, NEVER_CANCELLED } from '../../../../shared/util/cancellation.js';
import { generateCfHeapLogText } from '../../../tools/gen-cf-heaplog.js';

// The CF log's second half read by a real child worker (through the tsx shim): the fragment
// must arrive equal to the in-process one, and the joined graph equal to a sequential read.
let dir: string;
let path: string;
let text: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'heapscope-stretch-'));
  path = join(dir, 'app.gclog');
  text = generateCfHeapLogText({ objects: 3000, seed: 4 }).text;
  writeFileSync(path, text);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const data = { analysis: devWorkerScripts().analysis };
const middle = (): number => text.indexOf('\n', text.length >> 1) + 1; // ASCII: chars are bytes

describe('child-worker StretchReader', () => {
  it('reads a fragment equal to the in-process one; the joined graph equals the sequential read', async () => {
    const reader = childStretchReader(path, data)!;
    const seen: number[] = [];
    const tail = reader({ format: 'cf-heaplog', from: middle(), chunkSize: 4096 }, NEVER_CANCELLED, (b) => seen.push(b));
    const got = await tail.result;
    const source = await FileByteSource.open(path);
    try {
      const want = await readCfHeapLogFragment(source, middle(), { chunkSize: 4096 });
      expect(got.objects).toBe(want.objects);
      expect(got.objects).toBeGreaterThan(1000);
      expect(got.lines).toBe(want.lines);
      expect(got.end).toBe(want.end);
      expect(Array.from(got.idLo.subarray(0, got.objects))).toEqual(Array.from(want.idLo.subarray(0, want.objects)));
      expect(Array.from(got.refLo.subarray(0, got.refCount))).toEqual(Array.from(want.refLo.subarray(0, want.refCount)));
      expect(got.typeName).toEqual(want.typeName);

      const split = await readCfHeapLog(source, { splitAt: middle(), stretchReader: reader });
      const sequential = await readCfHeapLog(source);
      expect(Array.from(split.edgeTarget)).toEqual(Array.from(sequential.edgeTarget));
      expect(Array.from(split.nodeType)).toEqual(Array.from(sequential.nodeType));
      expect(split.problems).toEqual(sequential.problems);
    } finally {
      await source.close();
    }
  });

  it('a cancelled load rejects the stretch with CancelledError and ends the thread', async () => {
    const cancel = new CancellationSource();
    const tail = childStretchReader(path, data)!({ format: 'cf-heaplog', from: middle(), chunkSize: 16 }, cancel.token, () => {});
    cancel.cancel('closed');
    await expect(tail.result).rejects.toBeInstanceOf(CancelledError);
  });

  it('a stretch that cannot be read rejects (the reader then reads it itself)', async () => {
    const tail = childStretchReader(join(dir, 'gone.gclog'), data)!({ format: 'cf-heaplog', from: 10 }, NEVER_CANCELLED, () => {});
    await expect(tail.result).rejects.toMatchObject({ code: 'io/not-found' });
  });

  it('none without a child script (analyses inline)', () => {
    expect(childStretchReader(path, { analysis: null })).toBeUndefined();
  });
});
