import { graphIgnoring, pseudoNodesNamed, type IgnoreRule } from '../../shared/analysis/ignored-edges.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { NODE_PSEUDO } from '../../shared/graph/heap-graph.js';
import { plural } from '../../shared/util/plural.js';
import { flagAll, UsageError, type FlagSpec, type ParsedArgs } from './args.js';
import { escapeControl } from './terminal-text.js';

/**
 * "What if" on the command line (issue 16): `--ignore-type T` and `--ignore-root CATEGORY` (both
 * repeatable) on `report` and `dominators`. The analysis then runs on the graph without those
 * references (shared/analysis/ignored-edges.ts): every retained size, reachability figure and
 * dominator is as if they did not exist. The output's shape does not change; the table says what
 * was ignored.
 *
 *   --ignore-type T: every reference out of every instance of the type named exactly T;
 *   --ignore-root CATEGORY: every reference out of the root category (pseudo-node) named
 *     CATEGORY, e.g. "[finalizer Handles]", "[other roots]/[finalizer Handles]", "[static vars]",
 *     "[static var Shop.Prices]".
 */
export const IGNORE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  'ignore-type': { value: true, multiple: true },
  'ignore-root': { value: true, multiple: true },
};

export const IGNORE_USAGE = '[--ignore-type TYPE ...] [--ignore-root CATEGORY ...]';

export const IGNORE_DETAILS = [
  '--ignore-type TYPE / --ignore-root CATEGORY ("what if", repeatable): recompute everything as if',
  '  instances of TYPE (exact name) referenced nothing, or the root category CATEGORY (e.g.',
  '  "[finalizer Handles]", "[static vars]", "[static var Shop.Prices]") held nothing.',
];

export interface IgnoreResult {
  graph: HeapGraph;
  /** One line for the table header, or null when nothing is ignored. */
  note: string | null;
}

export function applyIgnoreFlags(g: HeapGraph, args: ParsedArgs): IgnoreResult {
  const types = flagAll(args, 'ignore-type');
  const roots = flagAll(args, 'ignore-root');
  if (types.length === 0 && roots.length === 0) return { graph: g, note: null };
  const rules: IgnoreRule[] = [];
  for (const name of types) {
    let found = false;
    g.types.names.forEach((n, t) => {
      if (n === name) {
        rules.push({ kind: 'type', typeIndex: t });
        found = true;
      }
    });
    if (!found) throw new UsageError(`--ignore-type: no type named ${escapeControl(name)} in this snapshot`);
  }
  for (const name of roots) {
    const nodes = pseudoNodesNamed(g, name);
    if (nodes.length === 0) throw new UsageError(`--ignore-root: no root category named ${escapeControl(name)} in this snapshot`, categoryNames(g));
    for (const node of nodes) rules.push({ kind: 'root', node });
  }
  const { graph, mask } = graphIgnoring(g, rules);
  const what = [...types.map((t) => `references from ${t}`), ...roots.map((r) => `root ${r}`)].map(escapeControl).join('; ');
  return { graph, note: `what if: ${plural(mask.count, 'reference')} ignored (${what}); every figure below is computed without them\n` };
}

/** The root categories below the root and one level further (groups like "[other roots]"), for the error message. */
function categoryNames(g: HeapGraph): string[] {
  const out: string[] = [];
  const { firstEdge, edgeTarget, nodeFlags, nodeType } = g;
  const names = g.types.names;
  for (let e = firstEdge[g.rootIndex]; e < firstEdge[g.rootIndex + 1] && out.length < 40; e++) {
    const c = edgeTarget[e];
    if ((nodeFlags[c] & NODE_PSEUDO) === 0) continue;
    out.push(`  ${names[nodeType[c]]}`);
    for (let f = firstEdge[c]; f < firstEdge[c + 1] && f < firstEdge[c] + 12; f++) {
      const d = edgeTarget[f];
      if (nodeFlags[d] & NODE_PSEUDO && !names[nodeType[d]].startsWith('[static var ')) out.push(`  ${names[nodeType[c]]}/${names[nodeType[d]]}`);
    }
  }
  return out.length ? ['root categories:', ...out] : [];
}
