import { describe, expect, it } from 'vitest';
import { mergeObjectPaths } from '../../../../../renderer/components/paths/path-tree';

// "What if" (issue 16): each path row knows its node and the node it references along the path,
// so its menu can ignore that reference; the root row stands for its root category's node.
describe('path rows for what-if', () => {
  it('carry the step node and the reference to the row above; the root row its category', () => {
    const nodes = mergeObjectPaths([
      {
        length: 4,
        rootCategory: '[static vars]',
        rootDetail: '[static var App.feed]',
        steps: [
          { node: 0, type: '[.NET Roots]', address: '0x0', size: 0, pseudo: true },
          { node: 1, type: '[static vars]', address: '0x0', size: 0, pseudo: true },
          { node: 7, type: '[static var App.feed]', address: '0x0', size: 0, pseudo: true },
          { node: 5, type: 'Feed', address: '0x1050', size: 24, pseudo: false },
          { node: 9, type: 'Target', address: '0x1090', size: 8, pseudo: false },
        ],
      },
    ]);
    expect(nodes.map((n) => [n.label, n.step, n.refersTo, n.object, n.isRoot])).toEqual([
      ['Target', 9, undefined, 9, false],
      ['Feed', 5, 9, 5, false],
      ['[static var App.feed]', 7, 5, undefined, false],
      ['[static vars]', 1, 7, undefined, false],
      ['[.NET Roots]', undefined, 1, undefined, false], // the synthetic root cannot be ignored
      ['[static vars]', 1, undefined, undefined, true],
    ]);
  });
});
