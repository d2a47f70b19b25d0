import type { GcTimeline as GcAnalysis } from '../../shared/analysis/gc-timeline.js';
import { AppError } from '../../shared/errors.js';
import type { SessionId, SnapshotSummary } from '../../shared/ipc/contract.js';
import type { PreliminaryTypes } from '../../shared/session/preliminary-types.js';
import type { SnapshotSession } from '../../shared/session/snapshot-session.js';
import { whatIfSummary, type WhatIf } from '../../shared/session/what-if.js';
import { CancellationSource, type CancellationToken } from '../../shared/util/cancellation.js';
import type { AnalysisRun } from './analysis-runner.js';
import { tokenWithFlag } from './shared-cancel.js';
import type { SnapshotWorkerData, WorkerEvent } from './worker-protocol.js';

/**
 * The session slots of a snapshot worker (snapshot-host.ts) and what the host's parts share:
 * the open/capture path (snapshot-open.ts), the analysis reruns and the what-if slot
 * (snapshot-analysis-runs.ts) and the query path (the host itself).
 *
 * A session slot goes: loading (parse, cancellable through its token) → parsed (queries answered;
 * the analysis runs in a child worker) → analysed. Calls that need the analysis
 * (SnapshotSession.needsAnalysis) await `analysisSettled` first; it never rejects, so a failed or
 * cancelled analysis surfaces as that query's coded error, not as a hang.
 */
export interface Slot {
  id: SessionId;
  path: string;
  /** GC events of a trace, read from the file on the first gcTimeline call. */
  gcEvents: Promise<GcAnalysis> | null;
  loadToken: CancellationSource;
  /** What the parse (or capture) checks: loadToken, or main's shared flag (shared-cancel.ts). */
  parseToken: CancellationToken;
  /** Main's shared flag, if it sent one: its Restore count stops the what-if's queries (query()). */
  cancelFlag?: SharedArrayBuffer;
  session: SnapshotSession | null;
  /** The load or capture (SnapshotHost.load / .capture), so close can wait for it to stop. */
  loading?: Promise<unknown>;
  /** A dump's type table from the helper's stats pass while the graph is read (preliminary-types.ts); null once `session` is set. */
  preliminary?: PreliminaryTypes | null;
  analysis: AnalysisRun | null;
  analysisSettled: Promise<void>;
  /** Running and queued setRetained calls, so cancelSetRetained and close can stop them. */
  setRetainedJobs?: Set<CancellationSource>;
  /** "What if" (issue 16): while set, its session answers every query instead of `session`. */
  whatIf?: WhatIfSlot | null;
}

/** A what-if session and its analysis run (the same life cycle as the original's). */
export interface WhatIfSlot {
  w: WhatIf;
  run: AnalysisRun | null;
  settled: Promise<void>;
}

/** The host state its parts read and change: the slots, the event sink, the worker's settings. */
export interface HostContext {
  readonly slots: Map<SessionId, Slot>;
  readonly emit: (e: WorkerEvent) => void;
  readonly data: Pick<SnapshotWorkerData, 'analysis' | 'analysisLimits' | 'debugJam'>;
}

export function newSlot(ctx: HostContext, id: SessionId, path: string, cancelFlag: SharedArrayBuffer | undefined): Slot {
  if (ctx.slots.has(id)) throw new AppError('bug', `session ${id} is already open in this worker`);
  const loadToken = new CancellationSource();
  const parseToken = tokenWithFlag(loadToken, cancelFlag);
  const slot: Slot = { id, path, gcEvents: null, loadToken, parseToken, cancelFlag, session: null, analysis: null, analysisSettled: Promise.resolve() };
  ctx.slots.set(id, slot);
  return slot;
}

/** The session the tab shows (the what-if's while one is set), once the parse is done. */
export function readySession(slots: Map<SessionId, Slot>, id: SessionId): SnapshotSession {
  const slot = slots.get(id);
  if (!slot) throw new AppError('session/not-found', `no open session ${id}`);
  if (!slot.session) throw new AppError('usage/bad-argument', `session ${id} is still loading`);
  return slot.whatIf?.w.session ?? slot.session;
}

/** The summary of what the tab shows: the what-if's while one is set. */
export function summaryOf(slot: Slot): SnapshotSummary {
  const base = slot.session!;
  return slot.whatIf ? whatIfSummary(slot.whatIf.w, base) : base.summary();
}
