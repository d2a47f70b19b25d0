import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestingPinia } from '@pinia/testing';
import type { SessionId } from '../../../../shared/ipc/contract';
import { setClient } from '../../../../renderer/api/heapscope-client';
import { useTabsStore } from '../../../../renderer/stores/tabs';
import { fakeClient, fileEntry, summaryOf, type FakeClient } from '../fake-client';

// What "Paths to roots" explains follows the last selection (issue 14 item 1), and Back/Forward
// walk a tab's views and selections. Real tabs store; the back end is a fake.
let client: FakeClient;

beforeEach(() => {
  createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  vi.mocked(client.open).mockImplementation(async ({ fileToken }) => ({ sessionId: `s-${fileToken}` as SessionId, file: fileEntry(String(fileToken)), state: 'loading' }));
  vi.mocked(client.summary).mockImplementation(async ({ sessionId }) => summaryOf(sessionId, fileEntry(sessionId)));
  vi.mocked(client.close).mockResolvedValue(undefined);
  setClient(client);
});

const LIST = { typeIndex: 7, type: 'System.Collections.Generic.List<System.String>' };
const STRING = { typeIndex: 3, type: 'System.String' };
const OBJ = { node: 42, type: LIST.type, address: '0x7f0010' };

describe('paths to roots follows the last selection', () => {
  it('selecting an object (Instances, dominator tree) switches Paths to the object', () => {
    const tabs = useTabsStore();
    const id = tabs.openFile(fileEntry('a'));
    tabs.selectType(id, LIST);
    tabs.openInstances(id, LIST);
    tabs.selectObject(id, OBJ);
    tabs.showView(id, 'paths');
    expect(tabs.view(id)).toMatchObject({ view: 'paths', pathsFor: 'object', selectedObject: OBJ });
  });

  it('selecting a type after an object switches Paths back to the type', () => {
    const tabs = useTabsStore();
    const id = tabs.openFile(fileEntry('a'));
    tabs.selectObject(id, OBJ);
    tabs.showPaths(id, 'object');
    tabs.showView(id, 'types');
    tabs.selectType(id, STRING);
    tabs.showView(id, 'paths');
    expect(tabs.view(id)).toMatchObject({ pathsFor: 'type', selectedType: STRING });
  });

  it('selecting the same type again after an object switches back to the type', () => {
    const tabs = useTabsStore();
    const id = tabs.openFile(fileEntry('a'));
    tabs.selectType(id, LIST);
    tabs.selectObject(id, OBJ);
    tabs.selectType(id, { ...LIST });
    expect(tabs.view(id)!.pathsFor).toBe('type');
  });

  it('clearing a selection leaves the mode alone', () => {
    const tabs = useTabsStore();
    const id = tabs.openFile(fileEntry('a'));
    tabs.selectObject(id, OBJ);
    tabs.selectType(id, null);
    expect(tabs.view(id)!.pathsFor).toBe('object');
  });
});

describe('back and forward', () => {
  it('walk views and selections of one tab, and a new step drops the forward entries', () => {
    const tabs = useTabsStore();
    const id = tabs.openFile(fileEntry('a'));
    expect(tabs.canGoBack(id)).toBe(false);
    tabs.selectType(id, LIST); // 1
    tabs.openInstances(id, LIST); // 2
    tabs.selectObject(id, OBJ); // 3
    tabs.showPaths(id, 'object'); // 4
    expect(tabs.canGoBack(id)).toBe(true);
    expect(tabs.canGoForward(id)).toBe(false);

    tabs.back(id);
    expect(tabs.view(id)).toMatchObject({ view: 'instances', selectedObject: OBJ, pathsFor: 'object' });
    tabs.back(id);
    expect(tabs.view(id)).toMatchObject({ view: 'instances', selectedObject: null, selectedType: LIST, pathsFor: 'type' });
    tabs.back(id);
    expect(tabs.view(id)).toMatchObject({ view: 'types', selectedType: LIST });
    tabs.back(id);
    expect(tabs.view(id)).toMatchObject({ view: 'types', selectedType: null, selectedObject: null });
    expect(tabs.canGoBack(id)).toBe(false);
    tabs.back(id); // nothing further back: no change
    expect(tabs.view(id)!.view).toBe('types');

    tabs.forward(id);
    tabs.forward(id);
    expect(tabs.view(id)).toMatchObject({ view: 'instances', selectedType: LIST, selectedObject: null });
    expect(tabs.canGoForward(id)).toBe(true);

    tabs.showView(id, 'dominators'); // a new step: forward history is gone
    expect(tabs.canGoForward(id)).toBe(false);
    tabs.back(id);
    expect(tabs.view(id)).toMatchObject({ view: 'instances', selectedType: LIST });
  });

  it('re-selecting the same thing or showing the same view is not a step', () => {
    const tabs = useTabsStore();
    const id = tabs.openFile(fileEntry('a'));
    tabs.showView(id, 'types');
    tabs.selectType(id, LIST);
    tabs.selectType(id, { ...LIST });
    tabs.back(id);
    expect(tabs.view(id)).toMatchObject({ view: 'types', selectedType: null });
    expect(tabs.canGoBack(id)).toBe(false);
  });

  it('each tab has its own history; the active-tab helpers act on the active one', () => {
    const tabs = useTabsStore();
    const a = tabs.openFile(fileEntry('a'));
    tabs.showView(a, 'summary');
    const b = tabs.openFile(fileEntry('b'));
    tabs.showView(b, 'dominators');
    tabs.showView(b, 'generations');
    tabs.goBack();
    expect(tabs.view(b)!.view).toBe('dominators');
    expect(tabs.view(a)!.view).toBe('summary');
    tabs.goForward();
    expect(tabs.view(b)!.view).toBe('generations');
  });

  it('keeps at most 100 steps', () => {
    const tabs = useTabsStore();
    const id = tabs.openFile(fileEntry('a'));
    for (let i = 0; i < 130; i++) tabs.selectType(id, { typeIndex: i, type: `T${i}` });
    let steps = 0;
    while (tabs.canGoBack(id)) {
      tabs.back(id);
      steps++;
    }
    expect(steps).toBe(100);
    expect(tabs.view(id)!.selectedType).toEqual({ typeIndex: 29, type: 'T29' });
  });
});
