import { graphIgnoring, type IgnoreRule } from '../analysis/ignored-edges.js';
import { AppError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import { NODE_PSEUDO } from '../graph/heap-graph.js';
import type { IgnoredItem, IgnoredSummary, IgnoreRuleDto, SnapshotSummary } from '../ipc/contract.js';
import { MAX_IGNORE_RULES } from '../ipc/dtos-what-if.js';
import type { CancellationToken } from '../util/cancellation.js';
import { NEVER_CANCELLED } from '../util/cancellation.js';
import { SnapshotSession } from './snapshot-session.js';

/**
 * "What if" for one open snapshot (issue 16): a second SnapshotSession over the same nodes with
 * the ignored references left out (ignored-edges.ts), which answers every query of the tab while
 * the ignore list is set. The original session, its analysis and its caches stay as they are, so
 * restoring is dropping this object. Its analysis is computed like the original's: by the host in
 * child workers (the app), or `runAnalysis` here (tests, the CLI).
 */
export interface WhatIf {
  readonly session: SnapshotSession;
  readonly rules: readonly IgnoreRuleDto[];
  readonly ignored: IgnoredSummary;
}

/**
 * Build the what-if session of `base` for `rules` (non-empty). Throws usage/bad-argument for a rule
 * naming nothing in this snapshot. `sharedMemory`: the new edge columns in SharedArrayBuffers (the
 * app's analysis children read them).
 */
export function createWhatIf(base: SnapshotSession, rules: readonly IgnoreRuleDto[], token: CancellationToken = NEVER_CANCELLED, sharedMemory = false): WhatIf {
  if (rules.length === 0) throw new AppError('bug', 'a what-if needs at least one ignored reference');
  if (rules.length > MAX_IGNORE_RULES) throw new AppError('usage/bad-argument', `at most ${MAX_IGNORE_RULES} ignore rules per snapshot`);
  const g = base.graph;
  const { graph, mask } = graphIgnoring(g, rules as IgnoreRule[], token, sharedMemory);
  const items: IgnoredItem[] = rules.map((rule, i) => ({ rule: { ...rule }, label: ruleLabel(g, rule), references: mask.perRule[i] }));
  const session = new SnapshotSession(graph, base.info, token);
  return { session, rules: items.map((x) => x.rule), ignored: { items, references: mask.count } };
}

/** The summary a what-if tab shows: the recomputed figures, the original's reference count, and what is ignored. */
export function whatIfSummary(w: WhatIf, base: SnapshotSession): SnapshotSummary {
  return { ...w.session.summary(), edgeCount: base.graph.edgeCount, ignored: w.ignored };
}

/** The banner's text for one rule. */
export function ruleLabel(g: HeapGraph, rule: IgnoreRuleDto): string {
  switch (rule.kind) {
    case 'reference':
      return `${nodeLabel(g, rule.from)} → ${nodeLabel(g, rule.to)}`;
    case 'type':
      return `references from ${g.types.names[rule.typeIndex]}`;
    case 'root':
      return `root ${g.types.names[g.nodeType[rule.node]]}`;
  }
}

function nodeLabel(g: HeapGraph, n: number): string {
  const name = g.types.names[g.nodeType[n]];
  if (g.nodeFlags[n] & NODE_PSEUDO) return name;
  return `${name} ${hexAddress(g, n)}`;
}

function hexAddress(g: HeapGraph, n: number): string {
  const a = g.address[n];
  return '0x' + a.toString(16);
}
