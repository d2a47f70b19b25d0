import { tinyGraph, type TinyBuilder, type TinyGraph } from './graph-builder.js';

/**
 * The small heap several analysis tests check exact numbers on:
 * [root] → A(10) → B(20) → C(30); A → D(5); [root] → E(7) → D; Dead(1000) → A (unreachable).
 * D has two retainers (A and E), so its dominator is the root; `more` adds nodes (e.g. an
 * isolated one).
 */
export function sharedChildHeap(more?: (b: TinyBuilder) => void): TinyGraph {
  return tinyGraph((b) => {
    b.root('R').ref('A', 'E');
    b.node('A', 10, 'T1').ref('B', 'D');
    b.node('B', 20, 'T2').ref('C');
    b.node('C', 30, 'T2');
    b.node('D', 5, 'T1');
    b.node('E', 7, 'T3').ref('D');
    b.node('Dead', 1000, 'T1').ref('A');
    more?.(b);
  });
}
