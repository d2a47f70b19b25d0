import { AppError, toErrorDto } from '../../shared/errors.js';
import type { SnapshotSummary } from '../../shared/ipc/contract.js';
import type { SnapshotSession } from '../../shared/session/snapshot-session.js';
import { createWhatIf } from '../../shared/session/what-if.js';
import { throttledProgress } from '../../shared/util/progress.js';
import { lowMemoryPlan, startAnalysis, type AnalysisRun } from './analysis-runner.js';
import { readySession, summaryOf, type HostContext, type Slot, type WhatIfSlot } from './snapshot-slots.js';
import type { WorkerRequest } from './worker-protocol.js';

/**
 * The analysis runs of a snapshot worker's sessions after the load started the first one: attaching
 * a run to its session, "Compute again" (issue 14) and the what-if slot with its runs (issue 16).
 */

/** Attach a started analysis to its session: the session takes its result, and the tab hears of it. */
export function beginAnalysis(ctx: HostContext, slot: Slot, session: SnapshotSession, run: AnalysisRun): void {
  session.markAnalysisRunning();
  slot.analysis = run;
  slot.analysisSettled = run.done.then(
    ({ analysis, ms }) => session.attachAnalysis(analysis, Math.round(ms)),
    (e: unknown) => session.failAnalysis(toErrorDto(e)),
  ).then(() => {
    slot.analysis = null;
    if (ctx.slots.get(slot.id) === slot) {
      ctx.emit({ type: 'event', name: 'summary-updated', payload: { sessionId: slot.id, summary: session.summary() } });
    }
  });
}

/**
 * "What if" (issue 16): replace the ignore list. The previous what-if (its run cancelled) is
 * dropped; an empty list goes back to the original session, whose analysis was never touched.
 * The mask and the graph without the ignored references are made here (one O(N + E) pass, where
 * a bad rule fails this call with its coded error), the analysis in fresh children like a load's.
 */
export async function setIgnored(ctx: HostContext, req: WorkerRequest<'setIgnored'>): Promise<SnapshotSummary> {
  readySession(ctx.slots, req.sessionId);
  const slot = ctx.slots.get(req.sessionId)!;
  await slot.analysisSettled;
  const base = slot.session;
  if (ctx.slots.get(req.sessionId) !== slot || !base) throw new AppError('session/not-found', `no open session ${req.sessionId}`);
  if (!base.analysisDone) throw new AppError('usage/bad-argument', 'references can be ignored once the dominator analysis of this snapshot is done');
  const t0 = performance.now();
  const entry: WhatIfSlot | null = req.rules.length > 0 ? { w: createWhatIf(base, req.rules, slot.loadToken.token, true), run: null, settled: Promise.resolve() } : null;
  const prepMs = performance.now() - t0;
  slot.whatIf?.run?.cancel();
  slot.whatIf = entry;
  if (entry) runWhatIf(ctx, slot, entry, prepMs);
  const summary = summaryOf(slot);
  if (!entry) ctx.emit({ type: 'event', name: 'summary-updated', payload: { sessionId: slot.id, summary } });
  return summary;
}

function runWhatIf(ctx: HostContext, slot: Slot, entry: WhatIfSlot, prepMs: number): void {
  const session = entry.w.session;
  const sessionId = slot.id;
  const progress = throttledProgress((phase, done, total) => ctx.emit({ type: 'event', name: 'load-progress', payload: { sessionId, stage: 'analysis', phase, done, total } }), 100);
  session.markAnalysisRunning();
  const run = startAnalysis(session.graph, progress, ctx.data, null, lowMemoryPlan(session.graph.nodeCount, session.graph.edgeCount));
  entry.run = run;
  entry.settled = run.done
    .then(
      ({ analysis, ms }) => session.attachAnalysis(analysis, Math.round(prepMs + ms)),
      (e: unknown) => session.failAnalysis(toErrorDto(e)),
    )
    .then(() => {
      entry.run = null;
      if (ctx.slots.get(slot.id) === slot && slot.whatIf === entry) {
        ctx.emit({ type: 'event', name: 'summary-updated', payload: { sessionId: slot.id, summary: summaryOf(slot) } });
      }
    });
}

/**
 * Compute again (issue 14): the analysis of a parsed session whose analysis was cancelled or
 * failed starts over in fresh children; a no-op while it runs or once it is done. Waits for the
 * previous run's settlement first, so its clean-up cannot clear the new run.
 */
export async function reanalyze(ctx: HostContext, req: WorkerRequest<'reanalyze'>): Promise<SnapshotSummary> {
  readySession(ctx.slots, req.sessionId);
  const whatIf = ctx.slots.get(req.sessionId)!.whatIf;
  if (whatIf) {
    // a what-if's recompute cancelled or failed: run it again, as for the original below
    await whatIf.settled;
    const slot = ctx.slots.get(req.sessionId)!;
    const state = whatIf.w.session.state;
    if (slot.whatIf === whatIf && (state === 'cancelled' || state === 'failed')) runWhatIf(ctx, slot, whatIf, 0);
    return summaryOf(slot);
  }
  await ctx.slots.get(req.sessionId)!.analysisSettled;
  const session = readySession(ctx.slots, req.sessionId);
  const slot = ctx.slots.get(req.sessionId)!;
  if (session.state === 'cancelled' || session.state === 'failed') {
    const sessionId = slot.id;
    const progress = throttledProgress((phase, done, total) => ctx.emit({ type: 'event', name: 'load-progress', payload: { sessionId, stage: 'analysis', phase, done, total } }), 100);
    beginAnalysis(ctx, slot, session, startAnalysis(session.graph, progress, ctx.data, null, lowMemoryPlan(session.graph.nodeCount, session.graph.edgeCount)));
  }
  return session.summary();
}
