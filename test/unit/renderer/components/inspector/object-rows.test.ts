import { describe, expect, it } from 'vitest';
import { objectOfRow } from '../../../../../renderer/components/inspector/object-actions';
import { mergeObjectPaths } from '../../../../../renderer/components/paths/path-tree';

// Which rows open the inspector: grid rows that are objects (instances, dominator rows, reference
// rows) and the object steps of a path to a root; never type rows, diff rows, roots or pseudo-nodes.
describe('object rows', () => {
  it('a grid row is an object when it has a numeric node and a string address', () => {
    expect(objectOfRow({ node: 12, address: '0x7f00', size: 8, retainedSize: null, generation: null, reachable: null })).toEqual({ node: 12, address: '0x7f00' });
    expect(objectOfRow({ typeIndex: 3, type: 'System.String', count: 4 })).toBeNull();
    expect(objectOfRow({ type: 'X', status: 'both' })).toBeNull();
    expect(objectOfRow(null)).toBeNull();
    expect(objectOfRow(undefined)).toBeNull();
  });

  it('path rows carry their object, except roots and pseudo-nodes', () => {
    const nodes = mergeObjectPaths([
      {
        length: 2,
        rootCategory: '[static vars]',
        rootDetail: 'Program.cache',
        steps: [
          { node: 1, type: '[static vars]', address: '0x0', size: 0, pseudo: true },
          { node: 5, type: 'Holder', address: '0x1050', size: 16, pseudo: false },
          { node: 9, type: 'Target', address: '0x1090', size: 8, pseudo: false },
        ],
      },
    ]);
    expect(nodes.map((n) => [n.label, n.object])).toEqual([
      ['Target', 9],
      ['Holder', 5],
      ['[static vars]', undefined],
      ['[static vars]', undefined],
    ]);
  });
});
