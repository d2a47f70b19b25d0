// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import * as cell from '../../../../../renderer/components/dominators/tree-cell';

// The first cell of the dominator tree, its grouped form and "Retained by": the markup their
// e2e tests and base.css's .tree-cell rules rely on.
describe('dominator tree cells', () => {
  it('a paging row: indented, one "Show N more" link of at most one window', () => {
    const el = cell.moreCell(2, 12_345);
    expect(el.className).toBe('tree-cell');
    expect(el.style.paddingLeft).toBe('32px');
    expect(el.innerHTML).toBe('<span class="more-link">Show 200 more of 12,345 remaining…</span>');
    expect(cell.moreCell(0, 7).textContent).toBe('Show 7 more of 7 remaining…');
  });

  it('an object row: chevron, type name (italic class for a pseudo-node), address', () => {
    const el = cell.treeCell(1);
    el.append(cell.chevron(true, false), cell.typeName('System.String', false), cell.address('0x1040'));
    expect(el.outerHTML).toBe('<span class="tree-cell" style="padding-left: 16px;"><span class="chevron">▸</span><span class="tname">System.String</span><span class="addr">0x1040</span></span>');
    expect(cell.chevron(true, true).textContent).toBe('▾');
    expect(cell.chevron(false, false).className).toBe('chevron leaf');
    expect(cell.typeName('[static vars]', true).className).toBe('tname pseudo');
  });
});
