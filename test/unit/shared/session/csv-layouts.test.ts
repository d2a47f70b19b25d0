import { describe, expect, it } from 'vitest';
import type { GcRow } from '../../../../shared/analysis/gc-timeline.js';
import { GC_TIMELINE_CSV, PATH_BRANCHES_CSV, PATH_STEPS_CSV, arraySource, csvChunks, pathStepRows } from '../../../../shared/session/csv-export.js';
import { gcEventDto } from '../../../../shared/session/gc-timeline-view.js';
import { GC_COLUMNS } from '../../../../electron/cli/commands/gc-timeline.js';
import { renderCsv } from '../../../../electron/cli/output.js';
import { mulberry32 } from '../../../helpers/random-graph.js';

// The app's CSV exports of the GC timeline and of paths-to-roots use the CLI's layouts, so a file
// exported from a tab can be compared with `heapscope gc-timeline/paths --format csv`. The CLI's
// own column tables are the oracle here.

const all = <R>(layout: Parameters<typeof csvChunks<R>>[0], rows: R[]) => [...csvChunks(layout, arraySource(rows))].join('');

function randomRow(rnd: () => number, n: number): GcRow {
  const maybe = <T>(v: T): T | null => (rnd() < 0.15 ? null : v);
  const sizes = maybe([0, 1, 2, 3, 4].map(() => Math.floor(rnd() * 1e9)) as [number, number, number, number, number]);
  return {
    number: n,
    generation: Math.floor(rnd() * 3),
    type: ['NonConcurrent', 'Background', 'Foreground'][Math.floor(rnd() * 3)],
    reason: ['AllocSmall', 'Induced', '=HYPERLINK("x")', 'Low, "Memory"'][Math.floor(rnd() * 4)],
    startMs: rnd() * 1e6,
    durationMs: maybe(rnd() * 100),
    pauseMs: maybe(rnd() * 10),
    sizesAfter: sizes,
    promotedBytes: sizes ? Math.floor(rnd() * 1e6) : null,
    mode: maybe(rnd() < 0.5 ? 'compacting' : 'sweeping'),
  };
}

describe('CSV layouts shared with the CLI', () => {
  it('GC timeline: byte for byte what `heapscope gc-timeline --format csv` writes for the same GCs (seeded random rows)', () => {
    const rnd = mulberry32(7);
    for (let trial = 0; trial < 10; trial++) {
      const rows = Array.from({ length: 1 + Math.floor(rnd() * 60) }, (_, i) => randomRow(rnd, i + 1));
      expect(all(GC_TIMELINE_CSV, rows.map(gcEventDto))).toBe(renderCsv(rows, GC_COLUMNS));
    }
    expect(GC_TIMELINE_CSV.header).toEqual(GC_COLUMNS.map((c) => c.key));
  });

  it('paths: one row per step of each path (object) and one per branch (type), with the CLI header keys', () => {
    expect(PATH_STEPS_CSV.header).toEqual(['path', 'step', 'node', 'type', 'address', 'size', 'pseudo', 'rootCategory', 'rootDetail']);
    expect(PATH_BRANCHES_CSV.header).toEqual(['id', 'parent', 'depth', 'count', 'type', 'endsHere', 'cutOff', 'omittedBranches', 'omittedCount']);
    const rows = pathStepRows([
      { length: 2, rootCategory: '[static vars]', rootDetail: 'App.Cache', steps: [
        { node: 0, type: '[root]', address: '0x0', size: 0, pseudo: true },
        { node: 5, type: 'App.Cache', address: '0x10', size: 24, pseudo: false },
        { node: 9, type: 'App.Item', address: '0x20', size: 32, pseudo: false },
      ] },
      { length: 1, rootCategory: null, rootDetail: null, steps: [{ node: 9, type: 'App.Item', address: '0x20', size: 32, pseudo: false }] },
    ]);
    expect(all(PATH_STEPS_CSV, rows)).toBe(
      'path,step,node,type,address,size,pseudo,rootCategory,rootDetail\r\n' +
        '1,0,0,[root],0x0,0,true,[static vars],App.Cache\r\n' +
        '1,1,5,App.Cache,0x10,24,false,[static vars],App.Cache\r\n' +
        '1,2,9,App.Item,0x20,32,false,[static vars],App.Cache\r\n' +
        '2,0,9,App.Item,0x20,32,false,,\r\n',
    );
  });
});
