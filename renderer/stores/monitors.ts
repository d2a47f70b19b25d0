import { acceptHMRUpdate, defineStore } from 'pinia';
import { markRaw, ref } from 'vue';
import type { AppErrorDto } from '../../shared/errors';
import type { GcEventDto, GcMonitorStatus, GcMonitorStopReason, GcTimelineSummaryDto, HeapscopeEvents, MonitorId } from '../../shared/ipc/contract';
import { useClient } from '../api/heapscope-client';
import { toDto } from '../api/error-messages';
import type { DocId, LiveProcess } from './documents';

/**
 * Live GC monitors, one per monitor tab (keyed by the tab's document id).
 *
 * Rows arrive in batches (`gc-monitor-rows`, a few per second) with their absolute positions, so
 * a batch that does not continue where we are (sent before we knew our monitor id, or lost while
 * reconnecting) is filled in from `gcMonitorRows`; batches are applied one at a time per monitor.
 * We keep at most MAX_ROWS rows (the back end keeps the same number), newest last. Row arrays are
 * replaced, never mutated, and marked raw: thousands of rows must not become reactive proxies.
 *
 * "Pause" freezes what the tab shows (rows keep arriving and are shown on resume); "Stop" ends
 * the monitoring session in the back end. Closing the tab stops it too.
 */
export const MAX_ROWS = 20_000;

export type MonitorPhase = 'starting' | 'running' | 'stopped' | 'failed';

export interface MonitorState {
  docId: DocId;
  process: LiveProcess;
  monitorId: MonitorId | null;
  runtimeVersion: string | null;
  phase: MonitorPhase;
  paused: boolean;
  /** Shown rows (frozen while paused), oldest first. */
  rows: GcEventDto[];
  /** GCs seen since the start (rows may hold fewer). */
  total: number;
  /** Rows that arrived while paused. */
  held: number;
  summary: GcTimelineSummaryDto | null;
  stopReason: GcMonitorStopReason | null;
  error: AppErrorDto | null;
  startedAt: number;
}

export const useMonitorsStore = defineStore('monitors', () => {
  const monitors = ref<Record<DocId, MonitorState>>({});
  /** Everything received, including what a pause holds back (not reactive). */
  const received = new Map<DocId, GcEventDto[]>();
  const queues = new Map<DocId, Promise<void>>();
  let unsubscribe: (() => void)[] = [];

  const byMonitor = (id: MonitorId): MonitorState | undefined => Object.values(monitors.value).find((m) => m.monitorId === id);

  function attach(): void {
    detach();
    const client = useClient();
    unsubscribe = [
      client.on('gc-monitor-rows', (e) => {
        const m = byMonitor(e.monitorId);
        if (m) enqueue(m.docId, () => applyRows(m.docId, e));
      }),
      client.on('gc-monitor-stopped', (e) => {
        const m = byMonitor(e.monitorId);
        if (m) enqueue(m.docId, async () => applyStopped(m.docId, e.status));
      }),
    ];
  }

  function detach(): void {
    for (const u of unsubscribe) u();
    unsubscribe = [];
  }

  function enqueue(docId: DocId, task: () => Promise<void>): Promise<void> {
    const next = (queues.get(docId) ?? Promise.resolve()).then(task).catch(() => undefined);
    queues.set(docId, next);
    return next;
  }

  /** Start monitoring `process` for the tab `docId`. Never rejects: failures land in the state. */
  async function start(docId: DocId, process: LiveProcess): Promise<void> {
    monitors.value[docId] = {
      docId,
      process,
      monitorId: null,
      runtimeVersion: null,
      phase: 'starting',
      paused: false,
      rows: markRaw([]),
      total: 0,
      held: 0,
      summary: null,
      stopReason: null,
      error: null,
      startedAt: Date.now(),
    };
    received.set(docId, []);
    try {
      const info = await useClient().startGcMonitor({ pid: process.pid });
      const m = monitors.value[docId];
      if (!m) {
        // the tab was closed while starting
        await useClient().stopGcMonitor({ monitorId: info.monitorId }).catch(() => undefined);
        return;
      }
      Object.assign(m, { monitorId: info.monitorId, runtimeVersion: info.runtimeVersion, startedAt: info.startedAt, phase: 'running' });
      if (info.name) m.process = { ...m.process, name: info.name };
      // rows sent before we knew our id: fetch from the start
      await enqueue(docId, () => catchUp(docId, Infinity));
    } catch (e) {
      const m = monitors.value[docId];
      if (m) Object.assign(m, { phase: 'failed', error: toDto(e) });
    }
  }

  async function applyRows(docId: DocId, e: HeapscopeEvents['gc-monitor-rows']): Promise<void> {
    const m = monitors.value[docId];
    const all = received.get(docId);
    if (!m || !all) return;
    const have = m.total;
    if (e.from > have) await catchUp(docId, e.from);
    const skip = Math.max(0, m.total - e.from);
    if (skip < e.rows.length) append(docId, e.rows.slice(skip));
    if (m.phase === 'running') m.summary = markRaw(e.summary);
  }

  /** Fetch kept rows from our position up to `until` (exclusive; Infinity = all the back end has). */
  async function catchUp(docId: DocId, until: number): Promise<void> {
    const m = monitors.value[docId];
    if (!m?.monitorId) return;
    for (;;) {
      const end = Math.min(until, m.total + 10_000);
      if (end <= m.total) return;
      const w = await useClient().gcMonitorRows({ monitorId: m.monitorId, start: m.total, end: Number.isFinite(end) ? end : m.total + 10_000 });
      if (w.start > m.total) m.total = w.start; // those were dropped by the back end
      append(docId, w.rows);
      if (w.rows.length === 0 || w.end >= w.total) return;
    }
  }

  function append(docId: DocId, rows: readonly GcEventDto[]): void {
    const m = monitors.value[docId];
    const all = received.get(docId);
    if (!m || !all || rows.length === 0) return;
    for (const r of rows) all.push(r);
    if (all.length > MAX_ROWS + MAX_ROWS / 10) all.splice(0, all.length - MAX_ROWS);
    m.total += rows.length;
    if (m.paused) m.held += rows.length;
    else m.rows = markRaw(all.slice());
  }

  function applyStopped(docId: DocId, status: GcMonitorStatus): void {
    const m = monitors.value[docId];
    if (!m) return;
    m.phase = status.stopReason === 'failed' ? 'failed' : 'stopped';
    m.stopReason = status.stopReason;
    m.error = status.error;
    m.summary = markRaw(status.summary);
    setPaused(docId, false);
  }

  function setPaused(docId: DocId, paused: boolean): void {
    const m = monitors.value[docId];
    if (!m || m.paused === paused) return;
    m.paused = paused;
    if (!paused) {
      m.rows = markRaw((received.get(docId) ?? []).slice());
      m.held = 0;
    }
  }

  /** End the monitoring session (the tab stays, with its rows, for reading and export). */
  async function stop(docId: DocId): Promise<void> {
    const m = monitors.value[docId];
    if (!m?.monitorId || m.phase !== 'running') return;
    try {
      const status = await useClient().stopGcMonitor({ monitorId: m.monitorId });
      await enqueue(docId, async () => {
        await catchUp(docId, status.total);
        applyStopped(docId, status);
      });
    } catch (e) {
      Object.assign(m, { phase: 'failed', error: toDto(e) });
    }
  }

  /** The tab is closing: stop the monitor and forget it. */
  async function close(docId: DocId): Promise<void> {
    const m = monitors.value[docId];
    delete monitors.value[docId];
    received.delete(docId);
    queues.delete(docId);
    if (m?.monitorId && m.phase === 'running') await useClient().stopGcMonitor({ monitorId: m.monitorId }).catch(() => undefined);
  }

  return { monitors, attach, detach, start, stop, setPaused, close };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useMonitorsStore, import.meta.hot));
