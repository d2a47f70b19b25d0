import type { HeapGraph } from '../../graph/heap-graph.js';
import { hasStringValues } from '../../graph/string-values.js';
import type { CancellationToken } from '../../util/cancellation.js';
import { NEVER_CANCELLED } from '../../util/cancellation.js';
import type { DominanceAnalysis } from '../analyze.js';
import { inspectAccumulation } from './accumulation.js';
import { inspectArrayFill } from './array-fill.js';
import { inspectDuplicateStrings } from './duplicate-strings.js';
import { inspectEmptyCollections } from './empty-collections.js';
import { hasFillFacts } from '../../graph/fill-facts.js';
import { inspectEventHandlers } from './event-handlers.js';
import { inspectFinalization } from './finalization.js';
import { makeContext, type Finding, type InspectionKind } from './finding.js';
import { inspectGrowth, type InspectionBaseline } from './growth.js';
import { inspectRetainerGrowth } from './growth-retainers.js';
import { inspectLargeObjects, type LargeHeapShare } from './large-objects.js';
import { inspectStatics } from './statics.js';
import { inspectTimers } from './timers.js';

export type { Finding, FindingExample, InspectionKind } from './finding.js';
export type { InspectionBaseline } from './growth.js';
export { baselineOf } from './growth.js';
export type { LargeHeapShare } from './large-objects.js';

/**
 * Run every inspection on one analysed snapshot: known leak patterns, each finding naming its
 * objects with exact retained bytes (see finding.ts for how bytes avoid double counting and each
 * inspection's file for its rule). Pure and cancellable; O(nodes) per inspection plus a 4-byte
 * order array and, per inspection, a 4-byte group column and a 1-byte mark column per node.
 */
export interface InspectionOptions {
  token?: CancellationToken;
  /** Growth suspects are computed only with a baseline. */
  baseline?: InspectionBaseline | null;
  /** Findings kept per inspection kind, largest bytes first (default: all). */
  top?: number;
  /** Example objects per finding (default 3). */
  examples?: number;
}

/** An inspection this file cannot run, and why. */
export interface UnavailableInspection {
  kind: string;
  title: string;
  reason: string;
}

export interface InspectionResult {
  findings: Finding[];
  /** LOH / POH totals, or null when the file has no generation data. */
  largeHeapShare: LargeHeapShare | null;
  unavailable: UnavailableInspection[];
}

/** Order of kinds in the result (the likeliest leaks first). */
export const INSPECTION_KINDS: readonly InspectionKind[] = [
  'event-handler-leak',
  'timer-held',
  'finalization',
  'accumulation-point',
  'growth-type',
  'growth-static',
  'growth-retainer',
  'static-field',
  'large-objects',
  'duplicate-strings',
  'sparse-arrays',
  'empty-arrays',
  'empty-collections',
];

const CONTENT_INSPECTIONS: [string, string][] = [
  ['duplicate-strings', 'Duplicate strings'],
  ['sparse-arrays', 'Sparse or empty arrays'],
  ['empty-collections', 'Empty collections'],
];

export function runInspections(g: HeapGraph, a: DominanceAnalysis, opts: InspectionOptions = {}): InspectionResult {
  const token = opts.token ?? NEVER_CANCELLED;
  const ctx = makeContext(g, a, token, opts.examples ?? 3);
  const large = inspectLargeObjects(ctx);
  const all: Finding[] = [
    ...inspectEventHandlers(ctx),
    ...inspectTimers(ctx),
    ...inspectFinalization(ctx),
    ...inspectAccumulation(ctx),
    ...(opts.baseline ? inspectGrowth(ctx, opts.baseline) : []),
    ...(opts.baseline?.retainers ? inspectRetainerGrowth(ctx, opts.baseline.retainers) : []),
    ...inspectStatics(ctx),
    ...large.findings,
    ...inspectDuplicateStrings(ctx),
    ...inspectArrayFill(ctx),
    ...inspectEmptyCollections(ctx),
  ];
  const top = opts.top ?? Infinity;
  const findings: Finding[] = [];
  for (const kind of INSPECTION_KINDS) {
    const ofKind = all.filter((f) => f.kind === kind);
    // growth is already ranked by growth; the rest by exact bytes, ties by title
    if (kind !== 'growth-type' && kind !== 'growth-static' && kind !== 'growth-retainer') ofKind.sort((x, y) => y.bytes - x.bytes || y.objects - x.objects || (x.title < y.title ? -1 : x.title > y.title ? 1 : 0));
    findings.push(...ofKind.slice(0, top));
  }
  // Only process dumps keep object contents (a .gcdump or heap-walk trace is references and sizes
  // only); a dump stream from an older helper may have string values without array/collection fill.
  const strings = hasStringValues(g);
  const fills = hasFillFacts(g);
  const has = (kind: string): boolean => (kind === 'duplicate-strings' ? strings : fills);
  const unavailable = CONTENT_INSPECTIONS.filter(([kind]) => !has(kind)).map(([kind, title]) => ({
    kind,
    title,
    reason: strings
      ? `${title} need array and collection contents, which this dump's reader did not send (rebuild the dump reader).`
      : `${title} need object contents, which this file does not have (a .gcdump or heap-walk trace holds only types, sizes and references): take a full memory dump.`,
  }));
  return { findings, largeHeapShare: large.share, unavailable };
}
