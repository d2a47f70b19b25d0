// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defineComponent, h, shallowRef } from 'vue';
import { flushPromises, mount } from '@vue/test-utils';
import { createTestingPinia } from '@pinia/testing';
import type { RowWindow, TypeRow } from '../../../../../shared/ipc/contract';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import InfiniteGrid from '../../../../../renderer/components/grids/InfiniteGrid.vue';
import { isMenuKey, rowTsv, typeOfRow } from '../../../../../renderer/components/grids/row-menu';
import { useRowMenu } from '../../../../../renderer/components/grids/use-row-menu';
import { groupedRowMenuTarget } from '../../../../../renderer/components/dominators/dominator-groups-model';
import { retainedByMenuTarget } from '../../../../../renderer/components/dominators/retained-by-model';
import { treeRowMenuTarget } from '../../../../../renderer/components/dominators/dominator-tree-model';
import ObjectMenu from '../../../../../renderer/components/inspector/ObjectMenu.vue';
import TypeMenu from '../../../../../renderer/components/types/TypeMenu.vue';
import { OBJECT_ROW_ACTIONS, objectRowActions, type ObjectMenuTarget } from '../../../../../renderer/components/inspector/object-actions';
import { onViewCommand } from '../../../../../renderer/composables/use-app-commands';
import { useInspectorStore } from '../../../../../renderer/stores/inspector';
import { useTabsStore } from '../../../../../renderer/stores/tabs';
import { fakeClient, fileEntry, summaryOf, type FakeClient } from '../../fake-client';
import { openSnapshots } from '../diff/open-snapshots';

// The grids' row menus (issue 14): right-click or Shift+F10 on a row of InfiniteGrid opens the
// object menu (object rows) or the type menu (grids of types), carrying the row's visible cells
// for "Copy row"; the menus' items go through the tabs store and the views' export command.
// AG Grid itself is stubbed (it is covered by the e2e spec context-menus.spec.ts): the stub
// renders one `.ag-row` per row and forwards the grid's events.

let client: FakeClient;
let pinia: ReturnType<typeof createTestingPinia>;
let clipboard: string[];
beforeEach(() => {
  pinia = createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  setClient(client);
  clipboard = [];
  Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText: async (t: string) => void clipboard.push(t) } });
});
afterEach(() => {
  document.body.innerHTML = '';
});

const TYPE_ROW = { typeIndex: 7, type: 'System.String', module: 'System.Private.CoreLib.dll', count: 1234, shallowSize: 56789 };
const OBJECT_ROW = { node: 42, address: '0x7f10', type: 'Leak', size: 24 };
const COLUMNS = ['type', 'count', 'shallowSize'];

/** A fake AG Grid api over `rows`: the displayed columns are COLUMNS, formatted values "f(<value>)". */
function fakeApi(rows: object[]) {
  const nodes = rows.map((data, i) => ({ id: String(i), data }));
  return {
    nodes,
    getAllDisplayedColumns: () => COLUMNS.map((c) => ({ getColId: () => c })),
    getCellValue: ({ rowNode, colKey }: { rowNode: { data: Record<string, unknown> }; colKey: { getColId(): string } }) => {
      const v = rowNode.data[colKey.getColId()];
      return v === undefined ? undefined : typeof v === 'number' ? v.toLocaleString('en-US') : v;
    },
    getDisplayedRowAtIndex: (i: number) => nodes[i],
    getSelectedNodes: () => [],
  };
}

const AgGridStub = defineComponent({
  props: { rows: { type: Array, default: () => [] } },
  emits: ['grid-ready', 'cell-key-down'], // contextmenu falls through to the element, as on AG Grid's
  setup(_, { attrs }) {
    return () => h('div', { ...attrs, class: 'ag-stub' }, []);
  },
});

async function mountGrid(rows: object[], typeRows: boolean) {
  const api = fakeApi(rows);
  const w = mount(InfiniteGrid, {
    props: { columnDefs: [], datasource: { getRows: () => undefined } as never, rowIdField: 'type', typeRows },
    global: { plugins: [pinia], provide: { [OBJECT_ROW_ACTIONS as symbol]: objectRowActions('doc1') }, stubs: { AgGridVue: AgGridStub } },
    attachTo: document.body,
  });
  await new Promise((r) => setTimeout(r, 5)); // the grid is created in steps, one task each
  await flushPromises();
  const stub = w.findComponent(AgGridStub);
  stub.vm.$emit('grid-ready', { api });
  // one row element per row, as AG Grid renders them
  const el = stub.element as HTMLElement;
  el.innerHTML = rows.map((_, i) => `<div class="ag-row" row-index="${i}"><div class="ag-cell" col-id="type">x</div></div>`).join('');
  return { w, stub, api, el };
}

function rightClick(el: HTMLElement, index: number, x = 100, y = 200): MouseEvent {
  const e = new MouseEvent('contextmenu', { bubbles: true, cancelable: true, button: 2, clientX: x, clientY: y });
  el.querySelector(`.ag-row[row-index="${index}"] .ag-cell`)!.dispatchEvent(e);
  return e;
}

describe('row-menu helpers', () => {
  it('Shift+F10 and the ContextMenu key open a menu; F10 alone does not', () => {
    expect(isMenuKey({ key: 'F10', shiftKey: true })).toBe(true);
    expect(isMenuKey({ key: 'ContextMenu', shiftKey: false })).toBe(true);
    expect(isMenuKey({ key: 'F10', shiftKey: false })).toBe(false);
    expect(isMenuKey({ key: 'Enter', shiftKey: true })).toBe(false);
  });
  it('a row is tab-separated text; tabs and line breaks inside a cell become one space, missing cells empty', () => {
    expect(rowTsv(['A\tB', 12, null, 'x\r\ny', undefined])).toBe('A B\t12\t\tx y\t');
  });
  it('a type row has a string type, with its typeIndex when it has one', () => {
    expect(typeOfRow(TYPE_ROW)).toEqual({ type: 'System.String', typeIndex: 7 });
    expect(typeOfRow({ type: 'Leak', status: 'both' })).toEqual({ type: 'Leak' });
    expect(typeOfRow({ count: 3 })).toBeNull();
    expect(typeOfRow(undefined)).toBeNull();
  });
});

describe('InfiniteGrid row menus', () => {
  it('right-click on a type row of a grid of types opens the type menu with the row text', async () => {
    const { el } = await mountGrid([OBJECT_ROW, TYPE_ROW], true);
    const e = rightClick(el, 1, 30, 40);
    expect(e.defaultPrevented).toBe(true);
    expect(useInspectorStore().typeMenu).toEqual({ docId: 'doc1', type: 'System.String', typeIndex: 7, rowText: 'System.String\t1,234\t56,789', x: 30, y: 40 });
    expect(useInspectorStore().menu).toBeNull();
  });

  it('right-click on an object row opens the object menu, with the row text', async () => {
    const { el } = await mountGrid([OBJECT_ROW, TYPE_ROW], true);
    rightClick(el, 0, 5, 6);
    expect(useInspectorStore().menu).toEqual({ docId: 'doc1', node: 42, address: '0x7f10', x: 5, y: 6, rowText: 'Leak\t\t' });
    expect(useInspectorStore().typeMenu).toBeNull();
  });

  it('a contextmenu event the keyboard made (button 0) only keeps the browser menu shut: the key press opened ours', async () => {
    const { el } = await mountGrid([TYPE_ROW], true);
    const e = new MouseEvent('contextmenu', { bubbles: true, cancelable: true, button: 0 });
    el.querySelector('.ag-cell')!.dispatchEvent(e);
    expect(e.defaultPrevented).toBe(true);
    expect([useInspectorStore().menu, useInspectorStore().typeMenu]).toEqual([null, null]);
  });

  it('a grid that is not a grid of types keeps the browser menu on a type row', async () => {
    const { el } = await mountGrid([TYPE_ROW], false);
    expect(rightClick(el, 0).defaultPrevented).toBe(false);
    expect([useInspectorStore().menu, useInspectorStore().typeMenu]).toEqual([null, null]);
  });

  it('Shift+F10 or the ContextMenu key on a focused cell opens the menu of its row; F10 alone does not', async () => {
    const { stub, api, el } = await mountGrid([TYPE_ROW, OBJECT_ROW], true);
    const cell = el.querySelector('.ag-cell') as HTMLElement;
    const key = (k: string, shiftKey: boolean, node: unknown) => {
      const ev = new KeyboardEvent('keydown', { key: k, shiftKey, cancelable: true });
      Object.defineProperty(ev, 'target', { value: cell });
      stub.vm.$emit('cell-key-down', { event: ev, node, data: (node as { data: unknown }).data });
      return ev;
    };
    const inspector = useInspectorStore();
    expect(key('F10', false, api.nodes[0]).defaultPrevented).toBe(false);
    expect(inspector.typeMenu).toBeNull();
    expect(key('F10', true, api.nodes[0]).defaultPrevented).toBe(true);
    expect(inspector.typeMenu).toMatchObject({ type: 'System.String', typeIndex: 7, rowText: 'System.String\t1,234\t56,789' });
    key('ContextMenu', false, api.nodes[1]);
    expect(inspector.menu).toMatchObject({ node: 42, address: '0x7f10' });
    expect(inspector.typeMenu).toBeNull();
  });
});

const typeWindow = (rows: Partial<TypeRow>[]): RowWindow<TypeRow> => ({ start: 0, end: rows.length, total: rows.length, rows: rows as TypeRow[] });

describe('TypeMenu', () => {
  async function mountMenu(menu: { type: string; typeIndex?: number }, analysisDone = true) {
    const [docId] = await openSnapshots(client, ['a.gcdump']);
    const inspector = useInspectorStore();
    inspector.openTypeMenu({ docId, ...menu, rowText: 'row\ttext', x: 1, y: 2 });
    const w = mount(TypeMenu, { props: { menu: inspector.typeMenu!, analysisDone }, global: { plugins: [pinia] }, attachTo: document.body });
    await flushPromises();
    return { w, docId, tabs: useTabsStore(), inspector };
  }

  it('Instances, Paths to roots and Retained by open the type through the tabs store, and close the menu', async () => {
    const { w, docId, tabs, inspector } = await mountMenu({ type: 'Leak', typeIndex: 4 });
    expect(document.activeElement?.getAttribute('data-testid')).toBe('type-menu-instances');
    await w.get('[data-testid="type-menu-instances"]').trigger('click');
    await flushPromises();
    expect([tabs.view(docId)!.view, tabs.view(docId)!.selectedType, inspector.typeMenu]).toEqual(['instances', { typeIndex: 4, type: 'Leak' }, null]);
    await w.get('[data-testid="type-menu-paths"]').trigger('click');
    await flushPromises();
    expect([tabs.view(docId)!.view, tabs.view(docId)!.pathsFor]).toEqual(['paths', 'type']);
    await w.get('[data-testid="type-menu-retained-by"]').trigger('click');
    await flushPromises();
    expect(tabs.view(docId)!.view).toBe('retained-by');
    expect(client.typeRows).not.toHaveBeenCalled();
  });

  it('a diff row (name only) is looked up in this snapshot; a type it does not have is reported', async () => {
    const { w, docId, tabs } = await mountMenu({ type: 'Leak' });
    vi.mocked(client.typeRows).mockResolvedValue(typeWindow([{ typeIndex: 9, type: 'Leak[]' }, { typeIndex: 3, type: 'Leak' }]));
    await w.get('[data-testid="type-menu-instances"]').trigger('click');
    await flushPromises();
    expect([tabs.view(docId)!.view, tabs.view(docId)!.selectedType]).toEqual(['instances', { typeIndex: 3, type: 'Leak' }]);
    vi.mocked(client.typeRows).mockResolvedValue(typeWindow([]));
    tabs.showView(docId, 'diff');
    await w.get('[data-testid="type-menu-paths"]').trigger('click');
    await flushPromises();
    expect(tabs.view(docId)!.view).toBe('diff');
  });

  it('Retained by waits for the analysis; Copy type name, Copy row and Export', async () => {
    const { w, inspector } = await mountMenu({ type: 'Leak', typeIndex: 4 }, false);
    expect(w.get('[data-testid="type-menu-retained-by"]').attributes('disabled')).toBeDefined();
    await w.get('[data-testid="type-menu-copy"]').trigger('click');
    await w.get('[data-testid="type-menu-copy-row"]').trigger('click');
    await flushPromises();
    expect(clipboard).toEqual(['Leak', 'row\ttext']);
    const exported = vi.fn();
    const off = onViewCommand('export-csv', exported);
    await w.get('[data-testid="type-menu-export"]').trigger('click');
    off();
    expect(exported).toHaveBeenCalledTimes(1);
    expect(inspector.typeMenu).toBeNull();
  });

  it('Escape closes it; Down/Up move between the enabled items', async () => {
    const { inspector } = await mountMenu({ type: 'Leak', typeIndex: 4 }, false);
    const press = (key: string) => window.dispatchEvent(new KeyboardEvent('keydown', { key }));
    press('ArrowDown');
    press('ArrowDown'); // Retained by is disabled: skipped
    expect(document.activeElement?.getAttribute('data-testid')).toBe('type-menu-copy');
    press('ArrowUp');
    expect(document.activeElement?.getAttribute('data-testid')).toBe('type-menu-paths');
    press('Escape');
    expect(inspector.typeMenu).toBeNull();
  });
});

describe('ObjectMenu', () => {
  it('Copy row and Export for a grid row; neither for a row that is not in a grid', async () => {
    const inspector = useInspectorStore();
    inspector.openMenu({ docId: 'doc1', node: 42, address: '0x7f10', x: 0, y: 0, rowText: '0x7f10\tLeak\t24' });
    const w = mount(ObjectMenu, { props: { menu: inspector.menu!, analysisDone: true }, global: { plugins: [pinia] }, attachTo: document.body });
    await w.get('[data-testid="menu-copy-row"]').trigger('click');
    await flushPromises();
    expect(clipboard).toEqual(['0x7f10\tLeak\t24']);
    const exported = vi.fn();
    const off = onViewCommand('export-csv', exported);
    await w.get('[data-testid="menu-export"]').trigger('click');
    off();
    expect(exported).toHaveBeenCalledTimes(1);
    w.unmount();

    inspector.openMenu({ docId: 'doc1', node: 42, address: '0x7f10', x: 0, y: 0 });
    const plain = mount(ObjectMenu, { props: { menu: inspector.menu!, analysisDone: true }, global: { plugins: [pinia] } });
    expect(plain.findAll('button').map((b) => b.text())).toEqual(['Inspect', 'Paths to roots', 'Show in dominator tree', 'Copy address']);
  });
});

describe('row menus of the dominator tree by type and Retained by', () => {
  const treeRow = (node: number, pseudo: boolean) => ({ node, address: `0x${node.toString(16)}`, type: pseudo ? '[other roots]' : 'T', typeIndex: 6, pseudo }) as never;

  it('a group row is its type, an instance row its object (as in the tree); pseudo-node groups and "more" rows have no menu', () => {
    const group = { id: 't3', kind: 'group', depth: 0, typeIndex: 3, group: { typeIndex: 3, type: 'System.String', pseudo: false } as never, tree: null, expanded: false, remaining: 0 } as const;
    expect(groupedRowMenuTarget(group)).toEqual({ type: { type: 'System.String', typeIndex: 3 } });
    expect(groupedRowMenuTarget({ ...group, group: { typeIndex: 1, type: '[static vars]', pseudo: true } as never })).toBeNull();
    const node = (pseudo: boolean) => ({ ...group, id: 't3/1', kind: 'node' as const, group: null, tree: { kind: 'node', row: treeRow(26, pseudo) } as never });
    expect(groupedRowMenuTarget(node(false))).toEqual({ object: { node: 26, address: '0x1a', ignoreType: true, typeIndex: 6 } });
    expect(groupedRowMenuTarget(node(true))).toEqual({ object: { node: 26, address: '', rootCategory: '[other roots]' } });
    expect(groupedRowMenuTarget({ ...group, kind: 'more', group: null })).toBeNull();
  });

  it('a dominator tree row is its object, offering what if on its type; a root category row only what if on the category; "more" rows none', () => {
    const base = { id: '1', depth: 0, parent: 0, expanded: false, remaining: 0 };
    expect(treeRowMenuTarget({ ...base, kind: 'node', row: treeRow(255, false) })).toEqual({ object: { node: 255, address: '0xff', ignoreType: true, typeIndex: 6 } });
    expect(treeRowMenuTarget({ ...base, kind: 'node', row: treeRow(1, true) })).toEqual({ object: { node: 1, address: '', rootCategory: '[other roots]' } });
    expect(treeRowMenuTarget({ ...base, kind: 'more', row: null })).toBeNull();
  });

  it('a Retained by type row is its dominator type, an object row its object; pseudo types have no menu', () => {
    const base = { id: 'x', depth: 0, dominatorType: 5, row: null, object: null, expanded: false, remaining: 0 };
    const typeRow = (pseudo: boolean) => ({ ...base, kind: 'type' as const, row: { typeIndex: 5, type: pseudo ? '[.NET Roots]' : 'Holder', pseudo, self: false } as never });
    expect(retainedByMenuTarget(typeRow(false))).toEqual({ type: { type: 'Holder', typeIndex: 5 } });
    expect(retainedByMenuTarget(typeRow(true))).toBeNull();
    expect(retainedByMenuTarget({ ...base, kind: 'object', object: treeRow(16, false) })).toEqual({ object: { node: 16, address: '0x10', ignoreType: true } });
    expect(retainedByMenuTarget({ ...base, kind: 'object', object: treeRow(16, true) })).toBeNull();
    expect(retainedByMenuTarget({ ...base, kind: 'more' })).toBeNull();
  });

  it('what if from a dominator row: Ignore references from this type (its type index, no lookup) and no Ignore this reference', async () => {
    const [docId] = await openSnapshots(client, ['a.gcdump']);
    vi.mocked(client.setIgnored).mockImplementation(async ({ sessionId }) => summaryOf(sessionId, fileEntry('a.gcdump')));
    const actions = objectRowActions(docId);
    const inspector = useInspectorStore();
    const target = treeRowMenuTarget({ id: '9', depth: 0, parent: 'root', expanded: false, remaining: 0, kind: 'node', row: treeRow(9, false) });
    actions.menu((target as { object: ObjectMenuTarget }).object, 7, 8);
    expect(inspector.menu).toEqual({ docId, node: 9, address: '0x9', ignoreType: true, typeIndex: 6, x: 7, y: 8 });
    const w = mount(ObjectMenu, { props: { menu: inspector.menu!, analysisDone: true }, global: { plugins: [pinia] } });
    expect(w.findAll('button').map((b) => b.text())).toEqual(['Inspect', 'Paths to roots', 'Show in dominator tree', 'Copy address', 'Ignore references from this type']);
    await w.get('[data-testid="menu-ignore-type"]').trigger('click');
    await flushPromises();
    expect(client.setIgnored).toHaveBeenCalledWith({ sessionId: 's-a.gcdump', rules: [{ kind: 'type', typeIndex: 6 }] });
    expect(client.objectInfo).not.toHaveBeenCalled();
    expect(inspector.menu).toBeNull();
    w.unmount();

    // a Retained by object row has no type index: it is asked for
    vi.mocked(client.objectInfo).mockResolvedValue({ typeIndex: 11 } as never);
    actions.menu((retainedByMenuTarget({ id: 'x', depth: 1, dominatorType: 11, row: null, object: treeRow(16, false), expanded: false, remaining: 0, kind: 'object' }) as { object: ObjectMenuTarget }).object, 1, 2);
    const r = mount(ObjectMenu, { props: { menu: inspector.menu!, analysisDone: true }, global: { plugins: [pinia] } });
    await r.get('[data-testid="menu-ignore-type"]').trigger('click');
    await flushPromises();
    expect(client.objectInfo).toHaveBeenCalledWith({ sessionId: 's-a.gcdump', node: 16 });
    expect(vi.mocked(client.setIgnored).mock.calls[1][0]).toEqual({ sessionId: 's-a.gcdump', rules: [{ kind: 'type', typeIndex: 11 }] });
  });

  it('what if from a root category row of the dominator tree: only Ignore root category, sent as a root rule', async () => {
    const [docId] = await openSnapshots(client, ['a.gcdump']);
    vi.mocked(client.setIgnored).mockImplementation(async ({ sessionId }) => summaryOf(sessionId, fileEntry('a.gcdump')));
    const inspector = useInspectorStore();
    const target = treeRowMenuTarget({ id: '3', depth: 0, parent: 'root', expanded: false, remaining: 0, kind: 'node', row: treeRow(3, true) });
    objectRowActions(docId).menu((target as { object: ObjectMenuTarget }).object, 0, 0);
    const w = mount(ObjectMenu, { props: { menu: inspector.menu!, analysisDone: false }, global: { plugins: [pinia] } });
    expect(w.findAll('button').map((b) => b.text())).toEqual(['Ignore root category [other roots]']);
    expect(w.get('[data-testid="menu-ignore-root"]').attributes('disabled')).toBeDefined(); // waits for the analysis
    w.unmount();
    const ready = mount(ObjectMenu, { props: { menu: inspector.menu!, analysisDone: true }, global: { plugins: [pinia] } });
    await ready.get('[data-testid="menu-ignore-root"]').trigger('click');
    await flushPromises();
    expect(client.setIgnored).toHaveBeenCalledWith({ sessionId: 's-a.gcdump', rules: [{ kind: 'root', node: 3 }] });
  });

  it('useRowMenu opens the menu of the row under a right-click or the focused row on Shift+F10, without Copy row / Export', async () => {
    const rows = [{ t: { type: { type: 'Holder', typeIndex: 5 } } }, { t: { object: { node: 16, address: '0x10' } } }, { t: null }];
    const api = shallowRef({ getDisplayedRowAtIndex: (i: number) => ({ data: rows[i] }) } as never);
    let menu!: ReturnType<typeof useRowMenu<(typeof rows)[number]>>;
    const Host = defineComponent({
      setup() {
        menu = useRowMenu(api, (r) => r.t as never);
        return () => h('div', rows.map((_, i) => h('div', { class: 'ag-row', 'row-index': String(i) }, [h('span', { class: 'c' })])));
      },
    });
    const w = mount(Host, { global: { plugins: [pinia], provide: { [OBJECT_ROW_ACTIONS as symbol]: objectRowActions('doc1') } } });
    const inspector = useInspectorStore();
    const click = (i: number) => {
      const e = new MouseEvent('contextmenu', { bubbles: true, cancelable: true, button: 2, clientX: 3, clientY: 4 });
      Object.defineProperty(e, 'target', { value: w.findAll('.c')[i].element });
      menu.onContextMenu(e);
      return e.defaultPrevented;
    };
    expect(click(0)).toBe(true);
    expect(inspector.typeMenu).toEqual({ docId: 'doc1', type: 'Holder', typeIndex: 5, x: 3, y: 4 });
    expect(click(1)).toBe(true);
    expect(inspector.menu).toEqual({ docId: 'doc1', node: 16, address: '0x10', x: 3, y: 4 });
    inspector.closeMenu();
    expect(click(2)).toBe(false);
    expect([inspector.menu, inspector.typeMenu]).toEqual([null, null]);
    const key = (k: string, shiftKey: boolean, data: unknown) => menu.onMenuKey({ event: new KeyboardEvent('keydown', { key: k, shiftKey, cancelable: true }), data } as never);
    expect(key('F10', false, rows[0])).toBe(false);
    expect(key('F10', true, rows[0])).toBe(true);
    expect(inspector.typeMenu).toMatchObject({ type: 'Holder', typeIndex: 5 });
    expect(key('ContextMenu', false, rows[2])).toBe(false);

    const typeMenu = mount(TypeMenu, { props: { menu: inspector.typeMenu!, analysisDone: true }, global: { plugins: [pinia] } });
    expect(typeMenu.findAll('button').map((b) => b.text())).toEqual(['Instances', 'Paths to roots', 'Retained by', 'Copy type name', 'Ignore references from Holder']); // the last: what if (issue 16)
  });
});
