import { computeTypeStats } from '../../../shared/analysis/type-stats.js';
import { rootCategories, type RootCategory, type RootCount } from '../../../shared/analysis/root-categories.js';
import { snapshotWarnings, type SnapshotWarning } from '../../../shared/analysis/snapshot-warnings.js';
import type { Problem, ProblemCode } from '../../../shared/graph/problems.js';
import { flag, UsageError } from '../args.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { DOMAIN_FLAG, loadSnapshot, selectOf, type LoadedSnapshot } from '../load.js';
import { formatNumber } from '../output.js';
import { escapeControl } from '../terminal-text.js';
import { plural } from '../../../shared/util/plural.js';

/**
 * `heapscope info FILE`: what a snapshot is and whether its numbers can be trusted.
 *
 * The JSON shape (`--format json`) is a public contract: fields are only ever added.
 */
export interface InfoJson {
  file: string;
  fileSize: number;
  format: string;
  formatVersion: string | null;
  creationTool: string | null;
  pointerSize: number;
  nodeCount: number;
  edgeCount: number;
  typeCount: number;
  /** Heap objects: nodes minus pseudo-nodes and undefined nodes. */
  objectCount: number;
  pseudoNodeCount: number;
  undefinedNodeCount: number;
  /** Σ node sizes as read (bytes). */
  totalSize: number;
  sampled: boolean;
  /** Estimates of the original heap for a sampled dump; null otherwise. */
  scaledObjectCount: number | null;
  scaledTotalSize: number | null;
  averageCountMultiplier: number;
  averageSizeMultiplier: number;
  rootName: string;
  rootCategories: RootCategoryJson[];
  rootsByCategory: RootCount[];
  metadata: {
    processName: string | null;
    processId: number;
    machineName: string | null;
    timeCollected: string | null;
    totalProcessCommit: number;
    totalProcessWorkingSet: number;
    declaredTotalSize: number | null;
    segmentCount: number;
    hasGenerationData: boolean;
    extra: Record<string, string | number>;
  };
  warnings: SnapshotWarning[];
  problems: { total: number; counts: Partial<Record<ProblemCode, number>>; first: Problem[] };
}

interface RootCategoryJson {
  name: string;
  childCount: number;
  pseudo: boolean;
  children?: RootCategoryJson[];
}

/** How many problem messages the text and JSON outputs spell out. */
const FIRST_PROBLEMS = 10;

export function buildInfo(s: LoadedSnapshot): InfoJson {
  const g = s.graph;
  const m = g.metadata;
  const stats = computeTypeStats(g);
  const roots = rootCategories(g);
  const toJson = (c: RootCategory): RootCategoryJson =>
    c.children
      ? { name: c.name, childCount: c.childCount, pseudo: c.pseudo, children: c.children.map(toJson) }
      : { name: c.name, childCount: c.childCount, pseudo: c.pseudo };
  return {
    file: s.name,
    fileSize: s.fileSize,
    format: m.format,
    formatVersion: m.formatVersion,
    creationTool: m.creationTool,
    pointerSize: m.pointerSize,
    nodeCount: g.nodeCount,
    edgeCount: g.edgeCount,
    typeCount: g.types.count,
    objectCount: stats.objectCount,
    pseudoNodeCount: stats.pseudoNodeCount,
    undefinedNodeCount: stats.undefinedNodeCount,
    totalSize: g.totalSize,
    sampled: stats.sampled,
    scaledObjectCount: stats.sampled ? stats.scaledObjectCount : null,
    scaledTotalSize: stats.sampled ? stats.scaledObjectSize : null,
    averageCountMultiplier: m.averageCountMultiplier,
    averageSizeMultiplier: m.averageSizeMultiplier,
    rootName: roots.rootName,
    rootCategories: roots.categories.map(toJson),
    rootsByCategory: roots.byCategory,
    metadata: {
      processName: m.processName,
      processId: m.processId,
      machineName: m.machineName,
      timeCollected: m.timeCollected,
      totalProcessCommit: m.totalProcessCommit,
      totalProcessWorkingSet: m.totalProcessWorkingSet,
      declaredTotalSize: m.declaredTotalSize,
      segmentCount: m.segments?.length ?? 0,
      hasGenerationData: g.hasGenerationData,
      extra: m.extra,
    },
    warnings: snapshotWarnings(g),
    problems: { total: g.problems.total, counts: g.problems.counts, first: g.problems.entries.slice(0, FIRST_PROBLEMS) },
  };
}

export function renderInfoText(i: InfoJson): string {
  const n = formatNumber;
  const out: string[] = [];
  const width = Math.max(16, ...Object.keys(i.metadata.extra).map((k) => k.length + 2));
  const kv = (k: string, v: string) => out.push(`${k.padEnd(width)}${v}`);
  kv('file', `${i.file} (${n(i.fileSize)} bytes)`);
  const fmt = [i.format + (i.formatVersion ? ` (${i.formatVersion})` : ''), i.creationTool ? `written by ${i.creationTool}` : null];
  kv('format', fmt.filter(Boolean).join(', '));
  kv('pointer size', i.pointerSize ? `${i.pointerSize} bytes` : 'unknown');
  kv('nodes', n(i.nodeCount));
  kv('objects', `${n(i.objectCount)} (not counting ${plural(i.pseudoNodeCount, 'pseudo-node')} and ${plural(i.undefinedNodeCount, 'undefined node')})`);
  kv('references', n(i.edgeCount));
  kv('types', n(i.typeCount));
  kv('total size', `${n(i.totalSize)} bytes`);
  if (i.sampled) {
    kv('sampled', `yes: estimated ${n(Math.round(i.scaledObjectCount!))} objects, ${n(Math.round(i.scaledTotalSize!))} bytes in the real heap`);
  }
  const md = i.metadata;
  const proc = [md.processName ?? '?', md.processId ? `pid ${md.processId}` : null, md.machineName ? `on ${md.machineName}` : null];
  if (md.processName || md.processId || md.machineName) kv('process', proc.filter(Boolean).join(' '));
  if (md.timeCollected) kv('collected', md.timeCollected);
  if (md.totalProcessCommit || md.totalProcessWorkingSet) {
    kv('commit / WS', `${n(md.totalProcessCommit)} / ${n(md.totalProcessWorkingSet)} bytes`);
  }
  kv('segments', `${md.segmentCount} (generation data: ${md.hasGenerationData ? 'yes' : 'no'})`);
  for (const [k, v] of Object.entries(md.extra)) kv(k, typeof v === 'number' ? n(v) : v);
  if (i.format === 'cf-heaplog' && Number(md.extra.sectionCount) > 1) {
    kv('', `${md.extra.sectionCount} AppDomain sections: list them with "heapscope domains ${i.file}", open one with --domain NAME|INDEX`);
  }

  out.push('', `roots by category (below ${i.rootName})`);
  const catWidth = Math.max(8, ...i.rootsByCategory.map((r) => r.category.length));
  for (const r of i.rootsByCategory) out.push(`  ${r.category.padEnd(catWidth)}  ${n(r.count).padStart(10)}`);
  if (i.rootsByCategory.length === 0) out.push('  (none)');

  out.push('', 'warnings');
  for (const w of i.warnings) out.push(`  - ${w.message}`);
  if (i.warnings.length === 0) out.push('  (none)');

  out.push('', `problems (${n(i.problems.total)})`);
  for (const [code, count] of Object.entries(i.problems.counts)) out.push(`  ${code.padEnd(20)}${n(count ?? 0).padStart(10)}`);
  if (i.problems.first.length > 0) {
    out.push('  first:');
    for (const p of i.problems.first) out.push(`    ${p.code}: ${p.message}`);
  }
  // Names, metadata and problem messages come from the file: one escaped line each.
  return out.map(escapeControl).join('\n') + '\n';
}

export const infoCommand: CliCommand = {
  name: 'info',
  summary: 'Show what a snapshot is: format, tool, sizes, roots by category, metadata, warnings and problems.',
  usage: 'heapscope info FILE [--domain NAME|INDEX] [--format text|json]',
  flags: { format: { value: true, choices: ['text', 'json'] }, domain: DOMAIN_FLAG },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('info takes exactly one FILE');
    const loaded = await loadSnapshot(args.positionals[0], io.stderr, selectOf(args));
    const info = buildInfo(loaded);
    io.stdout.write(flag(args, 'format') === 'json' ? JSON.stringify(info, null, 2) + '\n' : renderInfoText(info));
    return EXIT_OK;
  },
};
