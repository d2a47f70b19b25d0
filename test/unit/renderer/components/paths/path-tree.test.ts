import { describe, expect, it } from 'vitest';
import type { RetentionPathDto, TypePathNode } from '../../../../../shared/ipc/contract';
import { childIndex, fromTypeNodes, initialExpansion, mergeObjectPaths, visibleRows } from '../../../../../renderer/components/paths/path-tree';

const step = (node: number, type: string) => ({ node, type, address: `0x${node}`, size: 8, pseudo: false });

describe('mergeObjectPaths', () => {
  // two paths of target 9: [static vars] → A(1) → B(2) → 9 and [handles] → C(3) → B(2) → 9
  const paths: RetentionPathDto[] = [
    { length: 3, rootCategory: '[static vars]', rootDetail: 'Program.cache', steps: [step(1, 'A'), step(2, 'B'), step(9, 'Target')] },
    { length: 3, rootCategory: '[Strong handles]', rootDetail: null, steps: [step(3, 'C'), step(2, 'B'), step(9, 'Target')] },
  ];

  it('puts the target on top and merges shared retainers, counting paths through each', () => {
    const nodes = mergeObjectPaths(paths);
    const rows = visibleRows(childIndex(nodes), initialExpansion(nodes));
    expect(rows.map((r) => `${'  '.repeat(r.depth)}${r.node.label} ${r.node.count}`)).toEqual([
      'Target 2',
      '  B 2',
      '    A 1',
      '      [static vars] 1',
      '    C 1',
      '      [Strong handles] 1',
    ]);
    expect(rows[3].node).toMatchObject({ isRoot: true, sub: 'Program.cache' });
  });

  it('collapsing a node hides its subtree only', () => {
    const nodes = mergeObjectPaths(paths);
    const open = initialExpansion(nodes);
    const b = nodes.find((n) => n.label === 'B')!;
    open.delete(b.id);
    expect(visibleRows(childIndex(nodes), open).map((r) => r.node.label)).toEqual(['Target', 'B']);
  });
});

describe('fromTypeNodes', () => {
  it('adds explicit rows for omitted branches and cut-off paths so counts add up', () => {
    const nodes: TypePathNode[] = [
      { id: 0, parent: null, depth: 0, type: 'Leaky', count: 10, endsHere: 0, cutOff: 0, omittedBranches: 2, omittedCount: 3 },
      { id: 1, parent: 0, depth: 1, type: 'List<Leaky>', count: 7, endsHere: 0, cutOff: 1, omittedBranches: 0, omittedCount: 0 },
      { id: 2, parent: 1, depth: 2, type: '[static vars]', count: 6, endsHere: 6, cutOff: 0, omittedBranches: 0, omittedCount: 0 },
    ];
    const out = fromTypeNodes(nodes);
    const rows = visibleRows(childIndex(out), initialExpansion(out));
    expect(rows.map((r) => `${r.depth}:${r.node.label}:${r.node.count}`)).toEqual([
      '0:Leaky:10',
      '1:List<Leaky>:7',
      '2:[static vars]:6',
      '2:paths not followed further (depth limit):1',
      '1:2 more retaining types not listed:3',
    ]);
    expect(rows[2].node).toMatchObject({ isRoot: true, endsHere: 6 });
    expect(rows.filter((r) => r.node.elided)).toHaveLength(2);
  });

  it('expands only the first levels of a large tree', () => {
    const big: TypePathNode[] = [{ id: 0, parent: null, depth: 0, type: 'T', count: 1, endsHere: 0, cutOff: 0, omittedBranches: 0, omittedCount: 0 }];
    for (let i = 1; i < 600; i++) big.push({ id: i, parent: i - 1, depth: i, type: `R${i}`, count: 1, endsHere: 0, cutOff: 0, omittedBranches: 0, omittedCount: 0 });
    const out = fromTypeNodes(big);
    expect(visibleRows(childIndex(out), initialExpansion(out, 400, 3))).toHaveLength(4);
  });
});
