import { describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import type { InfoJson } from '../../electron/cli/commands/info.js';
import { captureIo } from '../helpers/capture-io.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';

// Oracle numbers: /work/shared/spec/expected-values.md §1.
const test1 = fixturePath('gcdump/perfview_test1.gcdump');
const test2 = fixturePath('gcdump/perfview_test2.gcdump');
const android = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const ios = fixturePath('gcdump/monovm_ios_sample.gcdump');

async function infoJson(path: string): Promise<InfoJson> {
  const c = captureIo();
  const code = await runCli(['info', path, '--format', 'json'], c.io);
  expect(c.err).toBe('');
  expect(code).toBe(0);
  return JSON.parse(c.out) as InfoJson;
}

describe.skipIf(!test2)(`heapscope info on perfview_test2.gcdump${test2 ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('reports sizes, roots, metadata and the 18 undefined nodes (json)', async () => {
    const i = await infoJson(test2!);
    expect(i.file).toBe('perfview_test2.gcdump');
    expect(i.format).toBe('gcdump');
    expect(i.creationTool).toBeNull();
    expect(i.pointerSize).toBe(4);
    expect(i.nodeCount).toBe(140_391);
    expect(i.typeCount).toBe(3_333);
    expect(i.edgeCount).toBe(235_137);
    expect(i.totalSize).toBe(4_147_128);
    expect(i.undefinedNodeCount).toBe(18);
    expect(i.objectCount + i.pseudoNodeCount + i.undefinedNodeCount).toBe(140_391);
    expect(i.sampled).toBe(false);
    expect(i.scaledObjectCount).toBeNull();
    expect(i.rootName).toBe('[.NET Roots]');
    expect(i.rootsByCategory).toEqual([
      { category: '[static vars]', count: 2148 },
      { category: '[Strong handles]', count: 22 },
      { category: '[Pinned handles]', count: 9 },
      { category: '[COM/WinRT Objects]', count: 8 },
      { category: '[Pinned local vars]', count: 2 },
      { category: '[local vars]', count: 3 },
    ]);
    expect(i.metadata).toMatchObject({
      processName: 'WpfApplication2',
      processId: 8660,
      machineName: 'PAL-DEV01',
      totalProcessCommit: 292_249_600,
      totalProcessWorkingSet: 57_380_864,
      segmentCount: 2,
      hasGenerationData: true,
      declaredTotalSize: 4_147_128,
    });
    expect(i.metadata.timeCollected).toMatch(/^2014-05-19T12:36:33\.27/);
    expect(i.warnings.map((w) => w.code)).toEqual(['undefined-nodes', 'problems']);
    expect(i.problems.counts['undefined-node']).toBe(18);
    expect(i.problems.first.length).toBeGreaterThan(0);
  });

  it('prints a readable text summary by default', async () => {
    const c = captureIo();
    expect(await runCli(['info', test2!], c.io)).toBe(0);
    expect(c.out).toMatch(/\nnodes +140,391\n/);
    expect(c.out).toMatch(/\ntotal size +4,147,128 bytes\n/);
    expect(c.out).toMatch(/objects +\d[\d,]* \(not counting [\d,]+ pseudo-nodes and 18 undefined nodes\)/);
    expect(c.out).toMatch(/\nprocess +WpfApplication2 pid 8660 on PAL-DEV01\n/);
    expect(c.out).toMatch(/\[static vars\] +2,148\n/);
    expect(c.out).toMatch(/undefined-node +18\n/);
  });
});

describe.skipIf(!android)(`heapscope info on a dotnet-gcdump file${android ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('counts pseudo-nodes apart and expands [other roots]', async () => {
    const i = await infoJson(android!);
    expect(i.creationTool).toBe('dotnet-gcdump');
    expect(i.pointerSize).toBe(8);
    expect(i.nodeCount).toBe(27_570);
    expect(i.typeCount).toBe(3_930);
    expect(i.edgeCount).toBe(49_775);
    expect(i.totalSize).toBe(1_780_688);
    // 1,813 address-0 pseudo-nodes and no undefined node
    expect(i.pseudoNodeCount).toBe(1_813);
    expect(i.undefinedNodeCount).toBe(0);
    expect(i.objectCount).toBe(27_570 - 1_813);
    expect(i.rootCategories.map((c) => [c.name, c.childCount, c.pseudo])).toEqual([
      ['[static vars]', 1804, true],
      ['[other roots]', 4, true],
      ['[local vars]', 2, true],
      ['[COM/WinRT Objects]', 0, true],
    ]);
    expect(i.rootCategories[1].children!.map((c) => [c.name, c.childCount])).toEqual([
      ['[strong Handles]', 16],
      ['[other Handles]', 13_135],
      ['[finalizer Handles]', 16],
      ['[Dependent Handles]', 16],
    ]);
    expect(i.rootsByCategory[2]).toEqual({ category: '[other roots]/[other Handles]', count: 13_135 });
    expect(i.metadata).toMatchObject({ processName: null, processId: 0, machineName: null, timeCollected: null, segmentCount: 0, hasGenerationData: false });
    // dotnet-gcdump keeps ConditionalWeakTable values as roots, without their keys: the summary says so
    expect(i.warnings.map((w) => w.code)).toEqual(['dependent-roots']);
    expect(i.problems).toEqual({ total: 0, counts: {}, first: [] });
  });
});

describe.skipIf(!ios || !test1)(`heapscope info on the other fixtures${ios && test1 ? '' : ` (${NO_FIXTURES})`}`, () => {
  it('monovm_ios: root categories', async () => {
    const i = await infoJson(ios!);
    expect([i.nodeCount, i.typeCount, i.edgeCount, i.totalSize, i.undefinedNodeCount]).toEqual([24_062, 430, 32_349, 1_309_128, 0]);
    expect(i.rootCategories.map((c) => [c.name, c.childCount])).toEqual([
      ['[static vars]', 143],
      ['[other roots]', 5],
      ['[local vars]', 16],
      ['[COM/WinRT Objects]', 0],
    ]);
  });

  it('perfview_test1 (JS heap): objects directly under [JS Roots]', async () => {
    const i = await infoJson(test1!);
    expect([i.nodeCount, i.typeCount, i.edgeCount, i.totalSize]).toEqual([6_482, 1_994, 15_020, 1_009_270]);
    expect(i.rootName).toBe('[JS Roots]');
    expect(i.rootCategories).toEqual([
      { name: '(Type  JSGlobal)', childCount: expect.any(Number), pseudo: false },
      { name: '(Type  JSGlobal)', childCount: expect.any(Number), pseudo: false },
    ]);
    expect(i.rootsByCategory).toEqual([{ category: '[JS Roots]', count: 2 }]);
    expect(i.objectCount).toBe(6_481); // every node but the root
    expect(i.metadata.machineName).toBe('MBRAUDE141201');
  });
});
