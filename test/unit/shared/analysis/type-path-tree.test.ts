import { describe, expect, it } from 'vitest';
import { shortestPathTree } from '../../../../shared/analysis/paths-to-roots.js';
import type { TypePathBranch } from '../../../../shared/analysis/type-path-tree.js';
import { typeMaskByName, typePathTree } from '../../../../shared/analysis/type-path-tree.js';
import { NONE } from '../../../../shared/graph/heap-graph.js';
import { CancelledError } from '../../../../shared/errors.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { randomGraph } from '../../../helpers/random-graph.js';

/*
 * Why are my 4 LeakyPage objects alive?
 *   root → [static vars] → Cache → List → P1, P2, P3     (3 via the cache)
 *   root → [local vars] → Handler → P4                    (1 via a handler)
 *   P5 is held only by garbage G: unreachable.
 *   P1 → P2 too (a same-type edge that must not change P2's shortest path).
 */
function leaky() {
  return tinyGraph((b) => {
    b.root('[static vars]').ref('Cache');
    b.root('[local vars]').ref('Handler');
    b.node('Cache', 24).ref('List');
    b.node('List', 32).ref('P1', 'P2', 'P3');
    b.node('Handler', 16).ref('P4');
    b.node('P1', 40, 'LeakyPage').ref('P2');
    b.node('P2', 40, 'LeakyPage');
    b.node('P3', 40, 'LeakyPage');
    b.node('P4', 40, 'LeakyPage');
    b.node('P5', 40, 'LeakyPage');
    b.node('G', 8).ref('P5');
  });
}

/** "Name count [ends/cut/omitted]" lines, indented by depth: easy to compare exactly. */
function lines(branches: TypePathBranch[], depth = 0): string[] {
  const out: string[] = [];
  for (const b of branches) {
    const extra = [b.endsHere ? `ends ${b.endsHere}` : '', b.cutOff ? `cut ${b.cutOff}` : '', b.omittedBranches ? `omitted ${b.omittedBranches}/${b.omittedCount}` : '']
      .filter(Boolean)
      .join(' ');
    out.push(`${'  '.repeat(depth)}${b.typeName} ${b.count}${extra ? ' ' + extra : ''}`);
    out.push(...lines(b.children, depth + 1));
  }
  return out;
}

describe('typePathTree', () => {
  const t = leaky();
  const g = t.graph;
  const spt = shortestPathTree(g);
  const mask = typeMaskByName(g, 'LeakyPage');

  it('merges the shortest paths of every instance into a tree of type names with counts', () => {
    const tree = typePathTree(g, spt, mask);
    expect([tree.instances, tree.reachable, tree.unreachable, tree.incomplete]).toEqual([5, 4, 1, false]);
    expect(lines(tree.roots)).toEqual([
      'LeakyPage 4',
      '  List 3',
      '    Cache 3',
      '      [static vars] 3',
      '        [root] 3 ends 3',
      '  Handler 1',
      '    [local vars] 1',
      '      [root] 1 ends 1',
    ]);
  });

  it('cuts paths at maxDepth and counts them', () => {
    expect(lines(typePathTree(g, spt, mask, { maxDepth: 2 }).roots)).toEqual([
      'LeakyPage 4',
      '  List 3',
      '    Cache 3 cut 3',
      '  Handler 1',
      '    [local vars] 1 cut 1',
    ]);
  });

  it('lists at most maxBreadth children and sums the rest', () => {
    expect(lines(typePathTree(g, spt, mask, { maxBreadth: 1 }).roots).slice(0, 2)).toEqual(['LeakyPage 4 omitted 1/1', '  List 3']);
  });

  it('stops growing at the trie cap and says so', () => {
    const tree = typePathTree(g, spt, mask, { maxTrieNodes: 3 });
    expect(tree.incomplete).toBe(true);
    expect(lines(tree.roots)).toEqual(['LeakyPage 4 cut 1', '  List 3', '    Cache 3 cut 3']);
  });

  it('stops when cancelled', () => {
    const c = new CancellationSource();
    c.cancel();
    expect(() => typePathTree(g, spt, mask, { token: c.token })).toThrow(CancelledError);
  });

  it('is empty for a type with no instances', () => {
    const tree = typePathTree(g, spt, typeMaskByName(g, 'Nope'));
    expect([tree.instances, tree.roots.length]).toEqual([0, 0]);
  });
});

describe('typePathTree: randomized against per-instance name chains', () => {
  it('every branch count equals the number of instances whose chain starts with that branch (150 seeds)', () => {
    let branches = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const g = randomGraph(seed, { nodes: 10 + (seed % 40), types: 4, avgDegree: 1.5 });
      const spt = shortestPathTree(g);
      const maxDepth = 1 + (seed % 6);
      const mask = typeMaskByName(g, 'T' + (seed % 4));
      // Oracle: a prefix-count table of "name>name>..." chains built by walking pred per instance.
      const prefix = new Map<string, number>();
      let instances = 0;
      let reachable = 0;
      for (let n = 0; n < g.nodeCount; n++) {
        if (!mask[g.nodeType[n]]) continue;
        instances++;
        if (spt.dist[n] === NONE) continue;
        reachable++;
        const chain: string[] = [];
        for (let cur = n, d = 0; d <= maxDepth; d++) {
          chain.push(g.types.names[g.nodeType[cur]]);
          prefix.set(chain.join('>'), (prefix.get(chain.join('>')) ?? 0) + 1);
          if (cur === g.rootIndex) break;
          cur = spt.pred[cur];
        }
      }
      const tree = typePathTree(g, spt, mask, { maxDepth, maxBreadth: 1000 });
      expect([tree.instances, tree.reachable]).toEqual([instances, reachable]);
      let seen = 0;
      const stack: [TypePathBranch, string][] = tree.roots.map((b) => [b, b.typeName]);
      while (stack.length) {
        const [b, key] = stack.pop()!;
        seen++;
        expect(b.count).toBe(prefix.get(key));
        const childSum = b.children.reduce((s, c) => s + c.count, 0);
        expect(childSum + b.endsHere + b.cutOff).toBe(b.count);
        for (const c of b.children) stack.push([c, key + '>' + c.typeName]);
      }
      expect(seen).toBe(prefix.size);
      branches += seen;
    }
    expect(branches).toBeGreaterThan(500);
  });
});
