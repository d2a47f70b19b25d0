import { vi } from 'vitest';
import type { EventName, FileEntry, FileToken, HeapscopeEvents, SessionId, SessionInfo, SnapshotSummary } from '../../../shared/ipc/contract';
import type { HeapscopeClient } from '../../../renderer/api/heapscope-client';

/**
 * A fake back end for renderer tests: every contract method is a `vi.fn` that rejects until a
 * test gives it behaviour, and `emit` plays the events the real bridge would push. Stubbed because
 * the real transports (Electron IPC, WebSocket) are tested on the back-end side and in e2e.
 */
export type FakeClient = HeapscopeClient & {
  emit<E extends EventName>(event: E, payload: HeapscopeEvents[E]): void;
  listenerCount(event: EventName): number;
};

export function fakeClient(): FakeClient {
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  const unset = (name: string) => vi.fn(() => Promise.reject(new Error(`fake client: ${name} not stubbed`)));
  const methods = [
    'appInfo', 'listFiles', 'takePendingOpens', 'pickFile', 'registerPath', 'removeRecent', 'clearRecent', 'open', 'listSessions',
    'summary', 'cancel', 'close', 'typeRows', 'objectRows', 'objectInfo', 'references', 'objectAtAddress', 'dominatorChildren', 'dominatorPath',
    'pathsToRoots', 'generations', 'diff', 'gcTimeline', 'exportCsv', 'saveSnapshot', 'exportReport', 'listProcesses', 'captureProcess',
    'startGcMonitor', 'stopGcMonitor', 'gcMonitorRows', 'gcMonitorStatus', 'setRetained', 'cancelSetRetained',
    'dominatorTypeGroups', 'dominatorTypeInstances', 'retainedBy', 'computeAgain', 'retainedByObjects', 'inspections', 'setIgnored',
    'trend', 'captureDump', 'dominatorSunburst',
    'stringRows', 'stringInstances',
    'trendDominators',
  ];
  const client: Record<string, unknown> = { mode: 'browser' };
  for (const m of methods) client[m] = unset(m);
  client.fileFromDrop = unset('fileFromDrop');
  client.on = (event: string, cb: (p: unknown) => void) => {
    const set = listeners.get(event) ?? new Set();
    set.add(cb);
    listeners.set(event, set);
    return () => set.delete(cb);
  };
  client.emit = (event: string, payload: unknown) => {
    for (const cb of listeners.get(event) ?? []) cb(payload);
  };
  client.listenerCount = (event: string) => listeners.get(event)?.size ?? 0;
  return client as unknown as FakeClient;
}

export function fileEntry(name: string, size = 1000): FileEntry {
  return { token: `tok-${name}` as FileToken, name, displayPath: `/data/${name}`, size, modifiedMs: 0, source: 'dialog', formatHint: 'gcdump', exists: true };
}

/** What `open` answers for a session still loading (its id as given, the file by name). */
export function loadingInfo(sessionId: string, name: string): SessionInfo {
  return { sessionId: sessionId as SessionId, file: fileEntry(name), state: 'loading' };
}

/** A minimal summary; `analysis` defaults to running (types usable, dominators pending). */
export function summaryOf(sessionId: string, file: FileEntry, over: Partial<SnapshotSummary> = {}): SnapshotSummary {
  return {
    sessionId: sessionId as SessionId,
    file,
    metadata: {
      format: 'gcdump', formatVersion: 'GCHeapDump v10', creationTool: null, processName: 'app', processId: 42, machineName: null,
      timeCollected: null, pointerSize: 8, averageCountMultiplier: 1, averageSizeMultiplier: 1, totalProcessCommit: 0,
      totalProcessWorkingSet: 0, declaredTotalSize: null, extra: {},
    },
    nodeCount: 10, edgeCount: 12, typeCount: 3,
    objects: { count: 9, size: 900 }, estimated: { count: 9, size: 900 },
    sampled: false, hasGenerations: false, rootsByCategory: [], warnings: [],
    problems: { total: 0, counts: {}, entries: [] },
    analysis: { state: 'running', error: null, ms: null },
    reachable: null, unreachable: null, unreachableFrozen: null, pseudoNodeCount: 1, undefinedNodeCount: 0, parseMs: 5,
    ...over,
  };
}

/** A promise with its resolve/reject exposed, to hold a fake back-end call open mid-test. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
