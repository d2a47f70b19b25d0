import { describe, expect, it } from 'vitest';
import type { DominatorSunburst, SunburstItemDto } from '../../../../../shared/ipc/contract';
import { crumbsForMode, ROOT_CRUMB, zoomCrumb } from '../../../../../renderer/components/sunburst/sunburst-nav';
import { chartTree, exactSize, itemLabel, sunburstOption, tooltipLines, type SunburstColors } from '../../../../../renderer/components/sunburst/sunburst-option';

// Issue 16: the Sunburst view's pure parts: the ECharts tree from the worker's items, tooltips,
// and where a click or a mode switch takes the breadcrumb trail.

const item = (parent: number, depth: number, kind: SunburstItemDto['kind'], name: string, retainedSize: number, extra: Partial<SunburstItemDto> = {}): SunburstItemDto => ({
  parent, depth, kind, name, retainedSize, node: kind === 'object' ? 100 + depth : null, typeIndex: kind === 'others' ? null : depth, address: kind === 'object' ? '0x10' : null,
  pseudo: false, count: 1, folded: 0, childCount: 0, ...extra,
});
// Cache (192) → E3 (108) → B (100); Cache → Arr (50); Cache → 2 others (24)
const byObject: DominatorSunburst = {
  node: 5, mode: 'object', typePath: [], depth: 4, top: 2, minShare: 0.005, reachableSize: 222,
  items: [
    item(-1, 0, 'object', 'Cache', 192, { childCount: 4 }),
    item(0, 1, 'object', 'Entry', 108, { node: 7, childCount: 1 }),
    item(0, 1, 'object', 'Arr', 50, { node: 8 }),
    item(0, 1, 'others', '2 others', 24, { count: 2, folded: 2 }),
    item(1, 2, 'object', 'Buf', 100, { node: 9 }),
  ],
};
const byType: DominatorSunburst = {
  ...byObject, node: 0, mode: 'type', typePath: [],
  items: [
    item(-1, 0, 'object', '[root]', 222, { node: 0, childCount: 2, pseudo: true }),
    item(0, 1, 'group', '[static vars]', 192, { typeIndex: 3 }),
    item(1, 2, 'group', 'Cache', 192, { typeIndex: 4 }),
    item(2, 3, 'group', 'Entry', 132, { typeIndex: 5, count: 3 }),
    item(3, 4, 'others', '1 other', 8, { count: 2, folded: 1 }),
  ],
};
const colors: SunburstColors = { palette: ['p0', 'p1'], others: 'grey', text: 'fg', border: 'bg' };

describe('sunburst chart data', () => {
  it('nests the items under the center, values = exact retained sizes, ring 1 coloured in turn, others grey', () => {
    const t = chartTree(byObject.items, colors);
    expect([t.name, t.value, t.idx]).toEqual(['Cache', 192, 0]);
    expect(t.children!.map((c) => [c.name, c.value, c.idx, c.itemStyle?.color])).toEqual([
      ['Entry', 108, 1, 'p0'],
      ['Arr', 50, 2, 'p1'],
      ['2 others', 24, 3, 'grey'],
    ]);
    expect(t.children![0].children!.map((c) => [c.name, c.value, c.itemStyle])).toEqual([['Buf', 100, { color: 'p0', opacity: 0.85 }]]);
    // the treemap nests fewer rings
    expect(chartTree(byObject.items, colors, 1).children![0].children).toBeUndefined();
    expect(itemLabel(byType.items[3])).toBe('Entry ×3');
  });

  it('tooltips: exact bytes and unit, share of parent and center, counts, what a click does', () => {
    expect(exactSize(1_771_192, 'auto')).toBe('1,771,192 bytes (1.69 MB)');
    expect(exactSize(999, 'auto')).toBe('999 bytes');
    expect(tooltipLines(byObject, 1, 'auto')).toEqual([
      'Entry', 'address: 0x10', 'retained: 108 bytes', 'share of parent: 56.3 % of Cache', 'share of center: 56.3 %', 'dominates 1 object directly', 'click: make it the center', 'double-click: inspect',
    ]);
    expect(tooltipLines(byObject, 3, 'auto')).toEqual([
      '2 others (folded)', 'retained: 24 bytes', 'share of parent: 12.5 % of Cache', 'share of center: 12.5 %', "2 objects, each under 0.5 % of the center or past its parent's 2 largest",
    ]);
    expect(tooltipLines(byType, 3, 'auto')).toContain('objects: 3 of type Entry');
    expect(tooltipLines(byType, 0, 'auto').slice(0, 3)).toEqual(['[root]', 'retained: 222 bytes', 'share of the reachable heap: 100.0 %']);
  });

  it('one series of each kind, clicks left to the component, in our order', () => {
    const s = sunburstOption({ data: byObject, kind: 'sunburst', colors, sizeFormat: 'auto' }).series as { type: string; nodeClick: unknown; levels: unknown[]; data: unknown[] }[];
    expect([s[0].type, s[0].nodeClick, s[0].levels.length, s[0].data.length]).toEqual(['sunburst', false, 2 + 4, 1]);
    const m = sunburstOption({ data: byObject, kind: 'treemap', colors, sizeFormat: 'auto' }).series as { type: string; nodeClick: unknown }[];
    expect([m[0].type, m[0].nodeClick]).toEqual(['treemap', false]);
  });
});

describe('sunburst breadcrumbs', () => {
  it('by object: an object item becomes the center; the center and "others" do not', () => {
    expect(zoomCrumb(byObject, ROOT_CRUMB, 1)).toEqual({ node: 7, typePath: [], label: 'Entry' });
    expect(zoomCrumb(byObject, ROOT_CRUMB, 3)).toBeNull();
    expect(zoomCrumb(byObject, ROOT_CRUMB, 0)).toBeNull();
  });

  it('by type: the groups from the center down to the item, appended to the trail\'s path', () => {
    expect(zoomCrumb(byType, ROOT_CRUMB, 3)).toEqual({ node: null, typePath: [3, 4, 5], label: 'Entry ×3' });
    const at = { node: 12, typePath: [1], label: 'X' };
    expect(zoomCrumb(byType, at, 2)?.typePath).toEqual([1, 3, 4]);
  });

  it('switching to by object keeps only the object centers', () => {
    const trail = [ROOT_CRUMB, { node: 7, typePath: [], label: 'Entry' }, { node: 7, typePath: [5], label: 'Buf' }];
    expect(crumbsForMode(trail, 'object')).toEqual(trail.slice(0, 2));
    expect(crumbsForMode(trail, 'type')).toEqual(trail);
  });
});
