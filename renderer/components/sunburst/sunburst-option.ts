import type { SunburstSeriesOption, TreemapSeriesOption } from 'echarts/charts';
import type { TooltipComponentOption } from 'echarts/components';
import type { ComposeOption } from 'echarts/core';
import type { DominatorSunburst, SunburstItemDto } from '../../../shared/ipc/contract';
import { formatBytes, formatCount } from '../grids/format';

/**
 * The ECharts option of the Sunburst view, built from the worker's aggregated rings (items in
 * parent-first order) into ECharts' nested data: the center is the one top-level node (the disc
 * in the middle of the sunburst, the outer box of the treemap), every value is an exact retained
 * size, so a parent's sector is wider than its children's sum by its objects' own sizes. Clicks
 * are handled by the component (`nodeClick: false`): a ring re-queries the worker as the new
 * center instead of ECharts zooming into the little it already has. Kept apart from the component
 * so it is unit-tested without a canvas.
 */
export type SunburstChartOption = ComposeOption<SunburstSeriesOption | TreemapSeriesOption | TooltipComponentOption>;
export type ChartKind = 'sunburst' | 'treemap';

export interface SunburstColors {
  palette: string[];
  others: string;
  text: string;
  border: string;
}

/** One ECharts data node; `idx` is the item's index in `DominatorSunburst.items`. */
export interface ChartNode {
  name: string;
  value: number;
  idx: number;
  children?: ChartNode[];
  itemStyle?: { color?: string; opacity?: number };
  label?: { color: string };
}

export type SizeFormat = Parameters<typeof formatBytes>[1];

/** Short label of an item: "n others", a type name, or "Type ×count" for a group of several. */
export function itemLabel(it: SunburstItemDto): string {
  if (it.kind === 'group' && it.count > 1) return `${it.name} ×${formatCount(it.count)}`;
  return it.name;
}

/**
 * The nested tree of `items` (parents precede children in the array) down to ring `maxDepth`.
 * Ring-1 items take the palette's colours in turn and their descendants inherit them, fading a
 * little per ring (ECharts would otherwise give the whole tree the one colour of its single top
 * node, our center); "others" are grey.
 */
export function chartTree(items: readonly SunburstItemDto[], colors: SunburstColors, maxDepth = Infinity): ChartNode {
  const nodes: ChartNode[] = items.map((it, idx) => ({ name: itemLabel(it), value: it.retainedSize, idx }));
  let ring1 = 0;
  for (let i = 1; i < items.length; i++) {
    const it = items[i];
    if (it.depth > maxDepth) continue;
    (nodes[it.parent].children ??= []).push(nodes[i]);
    if (it.kind === 'others') {
      nodes[i].itemStyle = { color: colors.others };
      nodes[i].label = { color: colors.text };
    } else if (it.depth === 1) nodes[i].itemStyle = { color: colors.palette[ring1++ % colors.palette.length] };
    else {
      const inherited = nodes[it.parent].itemStyle?.color;
      if (inherited) nodes[i].itemStyle = { color: inherited, opacity: Math.max(0.45, 1 - 0.15 * (it.depth - 1)) };
    }
  }
  return nodes[0];
}

const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Exact bytes, then the unit ("1,234,567 bytes (1.18 MB)"); bytes alone under 1000. */
export function exactSize(n: number, fmt: SizeFormat): string {
  const exact = formatBytes(n, 'bytes');
  const unit = formatBytes(n, fmt);
  return unit === exact ? exact : `${exact} (${unit})`;
}

/** Tooltip lines of item `idx` (plain text; the chart joins them with <br> after escaping). */
export function tooltipLines(data: DominatorSunburst, idx: number, fmt: SizeFormat): string[] {
  const it = data.items[idx];
  if (!it) return [];
  const center = data.items[0];
  const lines = [it.kind === 'others' ? `${it.name} (folded)` : it.name];
  if (it.address && !it.pseudo) lines.push(`address: ${it.address}`);
  lines.push(`retained: ${exactSize(it.retainedSize, fmt)}`);
  if (it.parent >= 0) {
    const p = data.items[it.parent];
    lines.push(`share of parent: ${percent(it.retainedSize, p.retainedSize)} of ${itemLabel(p)}`);
    lines.push(`share of center: ${percent(it.retainedSize, center.retainedSize)}`);
  } else if (data.reachableSize > 0) lines.push(`share of the reachable heap: ${percent(it.retainedSize, data.reachableSize)}`);
  if (it.kind === 'group' && it.count > 1) lines.push(`objects: ${formatCount(it.count)} of type ${it.name}`);
  if (it.kind === 'others') {
    const what = data.mode === 'type' ? `${formatCount(it.folded)} type groups (${formatCount(it.count)} objects)` : `${formatCount(it.folded)} objects`;
    lines.push(`${what}, each under ${(data.minShare * 100).toFixed(1)} % of the center or past its parent's ${data.top} largest`);
  } else {
    if (it.childCount > 0) lines.push(`dominates ${formatCount(it.childCount)} ${it.childCount === 1 ? 'object' : 'objects'} directly`);
    lines.push(idx > 0 ? 'click: make it the center' : 'click: back one level');
    if (it.node !== null) lines.push('double-click: inspect');
  }
  return lines;
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(1)} %` : '—';
}

/** Rings the treemap nests (deeper boxes would be too small to read; the sunburst shows all). */
export const TREEMAP_DEPTH = 3;

export interface SunburstChartInput {
  data: DominatorSunburst;
  kind: ChartKind;
  colors: SunburstColors;
  sizeFormat: SizeFormat;
}

export function sunburstOption(input: SunburstChartInput): SunburstChartOption {
  const { data, colors, sizeFormat } = input;
  const root = chartTree(data.items, colors, input.kind === 'treemap' ? TREEMAP_DEPTH : Infinity);
  const tooltip: TooltipComponentOption = {
    trigger: 'item',
    confine: true,
    formatter: (p) => {
      const d = (Array.isArray(p) ? p[0] : p) as { data?: { idx?: number } };
      const idx = d.data?.idx;
      return typeof idx === 'number' ? tooltipLines(data, idx, sizeFormat).map(escapeHtml).join('<br>') : '';
    },
  };
  const common = { id: 'dominators', nodeClick: false as const, animation: false, data: [root] };
  if (input.kind === 'treemap') {
    return {
      color: colors.palette,
      tooltip,
      series: [
        {
          ...common,
          type: 'treemap',
          roam: false,
          breadcrumb: { show: false },
          top: 4,
          left: 4,
          right: 4,
          bottom: 4,
          visibleMin: 64,
          label: { show: true, color: '#fff', overflow: 'truncate' },
          upperLabel: { show: true, height: 18, color: '#fff', overflow: 'truncate' },
          itemStyle: { borderColor: colors.border },
          levels: [
            { itemStyle: { borderWidth: 0, gapWidth: 4 }, upperLabel: { show: false } }, // the center: the whole box
            { itemStyle: { borderWidth: 3, gapWidth: 2 } },
            { itemStyle: { borderWidth: 2, gapWidth: 1, borderColorSaturation: 0.6 } },
            { itemStyle: { borderWidth: 1, gapWidth: 1, borderColorSaturation: 0.7 } },
          ],
        },
      ],
    };
  }
  const rings = data.depth;
  const inner = 18; // % of the radius for the center disc
  const step = (92 - inner) / Math.max(1, rings);
  const levels: NonNullable<SunburstSeriesOption['levels']> = [
    {}, // ECharts' virtual root above the center
    { radius: [0, `${inner}%`], label: { rotate: 0, color: colors.text, fontWeight: 'bold', lineHeight: 16, width: 110, overflow: 'truncate', formatter: (p) => `${p.name}\n${formatBytes(Number(p.value), sizeFormat)}` }, itemStyle: { color: 'transparent', borderColor: colors.border } },
  ];
  for (let d = 1; d <= rings; d++) levels.push({ radius: [`${inner + (d - 1) * step}%`, `${inner + d * step}%`], label: { rotate: d === 1 ? 'tangential' : 'radial', minAngle: 6, overflow: 'truncate', width: 90, color: '#fff' } });
  return {
    color: colors.palette,
    tooltip,
    series: [
      {
        ...common,
        type: 'sunburst',
        center: ['50%', '50%'],
        radius: [0, '95%'],
        // our order (largest first, "others" last), not ECharts' re-sort by value
        sort: (a, b) => a.dataIndex - b.dataIndex,
        itemStyle: { borderColor: colors.border, borderWidth: 1 },
        emphasis: { focus: 'descendant' }, // hover: the item and what it dominates
        levels,
      },
    ],
  };
}
