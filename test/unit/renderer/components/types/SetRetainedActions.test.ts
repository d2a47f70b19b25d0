// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { mount } from '@vue/test-utils';
import { createTestingPinia } from '@pinia/testing';
import type { RowWindow, SessionId, SetRetainedResult, TypeRow } from '../../../../../shared/ipc/contract';
import { CancelledError } from '../../../../../shared/errors';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import { useDocumentsStore } from '../../../../../renderer/stores/documents';
import SetRetainedActions from '../../../../../renderer/components/types/SetRetainedActions.vue';
import { deferred, fakeClient, type FakeClient } from '../../fake-client';

// The actions mounted for real; the back end is a fake so each request, progress event and the
// cancel can be checked as the user would trigger them.
let client: FakeClient;
let pinia: ReturnType<typeof createTestingPinia>;
const S = 's1' as SessionId;

beforeEach(() => {
  pinia = createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  setClient(client);
});

function mountActions(over: Record<string, unknown> = {}) {
  return mount(SetRetainedActions, {
    props: { docId: 'd1', sessionId: S, selected: { typeIndex: 7, type: 'Foo' }, sort: { key: 'retainedSize', dir: 'desc' }, filter: 'Sys', enabled: true, ...over },
    global: { plugins: [pinia] },
  });
}

const row = (typeIndex: number) => ({ typeIndex }) as TypeRow;

describe('SetRetainedActions', () => {
  it('"Calculate exact" sends the selected type, shows progress, then emits the result', async () => {
    const job = deferred<SetRetainedResult>();
    vi.mocked(client.setRetained).mockReturnValue(job.promise);
    const w = mountActions();
    expect(w.get('[data-testid="set-retained-one"]').attributes('title')).toContain('at most one walk over the reachable heap per type');
    await w.get('[data-testid="set-retained-one"]').trigger('click');
    await vi.waitFor(() => expect(client.setRetained).toHaveBeenCalledWith({ sessionId: S, typeIndices: [7] }));
    await w.vm.$nextTick();
    expect(w.get('[data-testid="set-retained-progress"]').text()).toBe('Calculating exact set retained: 0 / 1 types, 0%…');
    client.emit('set-retained-progress', { sessionId: 'other' as SessionId, done: 0, total: 9, fraction: 0.9 });
    client.emit('set-retained-progress', { sessionId: S, done: 0, total: 1, fraction: 0.42 });
    await w.vm.$nextTick();
    expect(w.get('[data-testid="set-retained-progress"]').text()).toBe('Calculating exact set retained: 0 / 1 types, 42%…');
    job.resolve({ rows: [{ typeIndex: 7, setRetainedSize: 1234 }], ms: 5 });
    await vi.waitFor(() => expect(w.emitted('computed')).toEqual([[{ rows: [{ typeIndex: 7, setRetainedSize: 1234 }], ms: 5 }]]));
    await w.vm.$nextTick();
    expect(w.find('[data-testid="set-retained-progress"]').exists()).toBe(false);
  });

  it('"Calculate exact for top N" takes the first N rows of the current sort and filter', async () => {
    vi.mocked(client.typeRows).mockResolvedValue({ start: 0, end: 3, total: 3, rows: [row(4), row(2), row(9)] } satisfies RowWindow<TypeRow>);
    vi.mocked(client.setRetained).mockResolvedValue({ rows: [], ms: 1 });
    const w = mountActions({ selected: null });
    expect(w.find('[data-testid="set-retained-one"]').exists()).toBe(false);
    await w.get('[data-testid="set-retained-n"]').setValue('3');
    await w.get('[data-testid="set-retained-top"]').trigger('click');
    await vi.waitFor(() => expect(client.setRetained).toHaveBeenCalledWith({ sessionId: S, typeIndices: [4, 2, 9] }));
    expect(client.typeRows).toHaveBeenCalledWith({ sessionId: S, sort: { key: 'retainedSize', dir: 'desc' }, filter: 'Sys', start: 0, end: 3 });
  });

  it('Cancel asks the worker to stop; a cancelled run is not reported as an error, a failure is', async () => {
    const job = deferred<SetRetainedResult>();
    vi.mocked(client.setRetained).mockReturnValue(job.promise);
    vi.mocked(client.cancelSetRetained).mockResolvedValue(undefined);
    const docs = useDocumentsStore();
    const report = vi.spyOn(docs, 'report');
    const w = mountActions();
    await w.get('[data-testid="set-retained-one"]').trigger('click');
    await vi.waitFor(() => expect(w.find('[data-testid="set-retained-cancel"]').exists()).toBe(true));
    await w.get('[data-testid="set-retained-cancel"]').trigger('click');
    expect(client.cancelSetRetained).toHaveBeenCalledWith({ sessionId: S });
    job.reject(new CancelledError('set retained calculation cancelled'));
    await vi.waitFor(() => expect(w.find('[data-testid="set-retained-one"]').exists()).toBe(true));
    expect(report).not.toHaveBeenCalled();
    expect(w.emitted('computed')).toBeUndefined();

    vi.mocked(client.setRetained).mockRejectedValue(Object.assign(new Error('boom'), { code: 'worker/crashed' }));
    await w.get('[data-testid="set-retained-one"]').trigger('click');
    await vi.waitFor(() => expect(report).toHaveBeenCalledTimes(1));
  });

  it('is disabled until the analysis is done', () => {
    const w = mountActions({ enabled: false });
    expect(w.get('[data-testid="set-retained-one"]').attributes('disabled')).toBeDefined();
    expect(w.get('[data-testid="set-retained-top"]').attributes('disabled')).toBeDefined();
  });
});
