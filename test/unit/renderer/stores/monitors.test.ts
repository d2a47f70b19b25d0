import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestingPinia } from '@pinia/testing';
import { AppError } from '../../../../shared/errors';
import type { GcEventDto, GcMonitorStatus, GcTimelineSummaryDto, MonitorId } from '../../../../shared/ipc/contract';
import { setClient } from '../../../../renderer/api/heapscope-client';
import { useMonitorsStore } from '../../../../renderer/stores/monitors';
import { useTabsStore } from '../../../../renderer/stores/tabs';
import { useDocumentsStore } from '../../../../renderer/stores/documents';
import { deferred, fakeClient, type FakeClient } from '../fake-client';

// The monitors store with a fake back end that keeps a list of "GCs" and answers windows of it,
// so batches that skip positions (sent before the store knew its monitor id) must be filled in.
let client: FakeClient;
const MID = 'm-1' as MonitorId;
const gc = (i: number): GcEventDto => ({
  index: i, generation: i % 3, reason: 'AllocSmall', kind: 'NonConcurrent', startMs: i * 10, durationMs: 1, pauseMs: 1,
  heapSizeBefore: null, heapSizeAfter: 1000 + i, sizesAfter: null, promotedBytes: null, mode: null,
});
const summary = (n: number): GcTimelineSummaryDto => ({ gcCount: n, byGeneration: [n, 0, 0], induced: 0, pause: { count: n, totalMs: n, p50: 1, p90: 1, p99: 1, max: 1 }, traceDurationMs: 1000, pausedPercent: 0.1 * n });
let backend: GcEventDto[];

beforeEach(() => {
  createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  backend = [];
  vi.mocked(client.gcMonitorRows).mockImplementation(async ({ start, end }) => {
    const e = Math.min(end, backend.length);
    return { start, end: Math.max(start, e), total: backend.length, rows: backend.slice(start, e) };
  });
  setClient(client);
});

function push(from: number, n: number): void {
  const rows = Array.from({ length: n }, (_, k) => gc(from + k + 1));
  backend.push(...rows);
  client.emit('gc-monitor-rows', { monitorId: MID, from, rows, total: from + n, summary: summary(from + n) });
}

describe('monitors store', () => {
  it('starts, catches up with rows sent before it knew its id, then appends batches in order without duplicates', async () => {
    const started = deferred<{ monitorId: MonitorId; pid: number; name: string | null; runtimeVersion: string | null; startedAt: number; maxRows: number }>();
    vi.mocked(client.startGcMonitor).mockReturnValue(started.promise);
    const monitors = useMonitorsStore();
    monitors.attach();
    const tabs = useTabsStore();
    const id = tabs.openMonitor({ pid: 42, name: 'App' });
    expect(tabs.view(id)?.view).toBe('timeline');
    expect(useDocumentsStore().docs[id]).toMatchObject({ kind: 'monitor', title: 'GCs · App (pid 42)' });
    expect(monitors.monitors[id].phase).toBe('starting');
    push(0, 3); // before the id is known: dropped by the store, fetched later
    started.resolve({ monitorId: MID, pid: 42, name: 'App', runtimeVersion: '10.0.1', startedAt: 1, maxRows: 20_000 });
    await vi.waitFor(() => expect(monitors.monitors[id].rows.length).toBe(3));
    expect(monitors.monitors[id]).toMatchObject({ phase: 'running', runtimeVersion: '10.0.1', total: 3 });
    push(3, 2);
    push(5, 1);
    await vi.waitFor(() => expect(monitors.monitors[id].total).toBe(6));
    expect(monitors.monitors[id].rows.map((r) => r.index)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(monitors.monitors[id].summary?.gcCount).toBe(6);

    // a lost batch: the next one starts further on, the gap is fetched
    backend.push(gc(7), gc(8));
    push(8, 1);
    await vi.waitFor(() => expect(monitors.monitors[id].total).toBe(9));
    expect(monitors.monitors[id].rows.map((r) => r.index)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // a repeated batch changes nothing
    client.emit('gc-monitor-rows', { monitorId: MID, from: 8, rows: [gc(9)], total: 9, summary: summary(9) });
    await new Promise((r) => setTimeout(r, 10));
    expect(monitors.monitors[id].total).toBe(9);
  });

  it('pause freezes the rows shown, resume shows what arrived; stop keeps the rows; closing the tab stops the monitor', async () => {
    vi.mocked(client.startGcMonitor).mockResolvedValue({ monitorId: MID, pid: 42, name: 'App', runtimeVersion: null, startedAt: 1, maxRows: 20_000 });
    const status: GcMonitorStatus = { monitorId: MID, pid: 42, state: 'stopped', stopReason: 'user', error: null, total: 4, firstKept: 0, summary: summary(4) };
    vi.mocked(client.stopGcMonitor).mockResolvedValue(status);
    const monitors = useMonitorsStore();
    monitors.attach();
    const tabs = useTabsStore();
    const id = tabs.openMonitor({ pid: 42, name: 'App' });
    await vi.waitFor(() => expect(monitors.monitors[id].phase).toBe('running'));
    push(0, 2);
    await vi.waitFor(() => expect(monitors.monitors[id].rows.length).toBe(2));
    monitors.setPaused(id, true);
    push(2, 1);
    await vi.waitFor(() => expect(monitors.monitors[id].held).toBe(1));
    expect(monitors.monitors[id].rows.length).toBe(2);
    monitors.setPaused(id, false);
    expect(monitors.monitors[id].rows.map((r) => r.index)).toEqual([1, 2, 3]);

    backend.push(gc(4)); // arrived in the back end after our last batch
    await monitors.stop(id);
    expect(monitors.monitors[id]).toMatchObject({ phase: 'stopped', stopReason: 'user', total: 4 });
    expect(monitors.monitors[id].rows.map((r) => r.index)).toEqual([1, 2, 3, 4]);

    const id2 = tabs.openMonitor({ pid: 43, name: null });
    await vi.waitFor(() => expect(monitors.monitors[id2].phase).toBe('running'));
    vi.mocked(client.stopGcMonitor).mockClear();
    await tabs.close(id2);
    expect(client.stopGcMonitor).toHaveBeenCalledWith({ monitorId: MID });
    expect(monitors.monitors[id2]).toBeUndefined();
  });

  it('a monitor that cannot start shows the coded error; the process exiting ends it as "stopped"', async () => {
    vi.mocked(client.startGcMonitor).mockRejectedValueOnce(new AppError('process/not-found', 'no process with id 42'));
    const monitors = useMonitorsStore();
    monitors.attach();
    const tabs = useTabsStore();
    const bad = tabs.openMonitor({ pid: 42, name: null });
    await vi.waitFor(() => expect(monitors.monitors[bad].phase).toBe('failed'));
    expect(monitors.monitors[bad].error).toMatchObject({ code: 'process/not-found' });

    vi.mocked(client.startGcMonitor).mockResolvedValue({ monitorId: MID, pid: 7, name: 'X', runtimeVersion: null, startedAt: 1, maxRows: 20_000 });
    const ok = tabs.openMonitor({ pid: 7, name: 'X' });
    await vi.waitFor(() => expect(monitors.monitors[ok].phase).toBe('running'));
    client.emit('gc-monitor-stopped', { monitorId: MID, status: { monitorId: MID, pid: 7, state: 'stopped', stopReason: 'exited', error: null, total: 0, firstKept: 0, summary: summary(0) } });
    await vi.waitFor(() => expect(monitors.monitors[ok].phase).toBe('stopped'));
    expect(monitors.monitors[ok].stopReason).toBe('exited');
  });
});
