import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helperCommand } from '../../electron/dump-reader/helper-process.js';
import { decodeDumpStream, NONE_ID, type DumpRecords } from '../../shared/formats/dump/dump-stream.js';
import type { TypeHistogram } from '../../shared/formats/dump/type-histogram.js';
import { MemoryByteSource } from '../../shared/util/byte-source.js';
import { dumpDotnetApp, processDumpSkip } from '../helpers/process-dump.js';

/**
 * The helper steps through each segment's objects itself (electron/dump-reader/SegmentObjects.cs:
 * types cached per method table) instead of ClrMD's segment.EnumerateObjects, and walks each
 * object's references itself (ObjectReferences.cs: the type's GCDesc over the object's bytes, field
 * ids cached per type and slot) instead of ClrMD's EnumerateReferencesWithFields, which looks up
 * every target's type. ClrMD's enumerations stay in the helper behind
 * HEAPSCOPE_DUMP_READER_CLRMD_OBJECTS=1 and HEAPSCOPE_DUMP_READER_CLRMD_REFS=1 as the oracle: on a real dump (LeakyApp: its
 * own fields, arrays of references, large objects, strings, and with `--objects 200000` a list
 * whose array of 262,144 references is bigger than the 1 MB the helper copies at once) both walks
 * must write the same stream byte for byte. (A reference inside an embedded struct, named "outer.inner", shows up only when
 * the app's System.Random exists, which it creates after READY: not asserted, as the dump may
 * come first.) Both walks run with `--type-histogram`: the stats pass steps through the objects
 * the same way as its walk, so its TYPE_HISTOGRAM record is compared byte for byte too, and it
 * must equal the per-type counts and sizes of the OBJECT records that follow.
 */
const helper = helperCommand();
const skip = processDumpSkip('dump tests');

function walk(dump: string, clrmd: boolean): Buffer {
  const r = spawnSync(helper!.command, [...helper!.args, '--type-histogram', dump], {
    maxBuffer: 1 << 30,
    env: { ...process.env, HEAPSCOPE_DUMP_READER_CLRMD_REFS: clrmd ? '1' : '', HEAPSCOPE_DUMP_READER_CLRMD_OBJECTS: clrmd ? '1' : '' },
  });
  expect(r.status, r.stderr?.toString()).toBe(0);
  return r.stdout;
}

describe.skipIf(skip !== null)(`the helper's reference walk against ClrMD's (${skip ?? 'dotnet and the dump reader found'})`, () => {
  let dir: string;
  let ours: Buffer;
  let clrmd: Buffer;
  let records: DumpRecords;
  let histogram: TypeHistogram | null = null;
  beforeAll(async () => {
    let dump: string;
    ({ dir, dump } = await dumpDotnetApp('LeakyApp', { prefix: 'heapscope-walk-oracle-', file: 'leaky.dmp', args: () => ['--objects', '200000'] }));
    ours = walk(dump, false);
    clrmd = walk(dump, true);
    records = await decodeDumpStream(new MemoryByteSource(new Uint8Array(ours), 'leaky.dmp'), undefined, undefined, undefined, (h) => (histogram = h));
  }, 300_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the same stream byte for byte as ClrMD\'s EnumerateObjects and EnumerateReferencesWithFields', () => {
    expect(ours.length).toBe(clrmd.length);
    expect(ours.equals(clrmd)).toBe(true);
  });

  it('its type histogram equals the walk\'s objects per type (count and bytes), before the first object', () => {
    const h = histogram!;
    expect(h).not.toBeNull();
    const count = new Uint32Array(records.typeNames.length);
    const bytes = new Float64Array(records.typeNames.length);
    for (let i = 0; i < records.objectCount; i++) {
      count[records.objectType[i]]++;
      bytes[records.objectType[i]] += records.objectSize[i];
    }
    expect(h.count.length).toBe(records.typeNames.length);
    expect(Array.from(h.count)).toEqual(Array.from(count));
    expect(Array.from(h.bytes)).toEqual(Array.from(bytes));
    expect(records.objectCount).toBeGreaterThan(200_000);
  });

  it('the stream covers named fields, array elements, strings and the large object heap', () => {
    const f = records.referenceField;
    let named = 0;
    let unnamed = 0;
    const names = new Set<string>();
    for (let i = 0; i < f.length; i++) {
      if (f[i] === NONE_ID) unnamed++;
      else {
        named++;
        names.add(records.strings.get(f[i]));
      }
    }
    expect(records.objectCount).toBeGreaterThan(1000);
    expect(named).toBeGreaterThan(1000);
    expect(unnamed).toBeGreaterThan(100); // array elements
    expect(records.stringValueText.length).toBeGreaterThan(100);
    // the Bulk list's backing array: 200,000 non-null references, read in blocks (ObjectReferences.cs)
    let most = 0;
    for (let i = 0; i < records.objectCount; i++) most = Math.max(most, records.referenceEnd[i] - (i === 0 ? 0 : records.referenceEnd[i - 1]));
    expect(most).toBe(200_000);
    // LeakyApp's five LargeBlob arrays (generation code 3: the large object heap)
    expect(records.objectGeneration.filter((g) => g === 3).length).toBeGreaterThanOrEqual(5);
  });
});
