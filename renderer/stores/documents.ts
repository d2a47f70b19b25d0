import { acceptHMRUpdate, defineStore } from 'pinia';
import { computed, markRaw, ref } from 'vue';
import type { AppErrorDto } from '../../shared/errors';
import type { CapturePhase, FileEntry, HeapscopeEvents, IgnoreRuleDto, SessionId, SnapshotSummary } from '../../shared/ipc/contract';
import { useClient } from '../api/heapscope-client';
import { describeError, toDto } from '../api/error-messages';

/**
 * Open documents (one per snapshot being loaded or loaded): session id, load phase and progress,
 * summary, problems and errors. Never row data: grids fetch windows through the client.
 *
 * Lifecycle: `open` creates the document at once (so a tab can show progress), asks the back end
 * for a session, then awaits `summary` (parse done). Events move it on: `load-progress` updates the
 * bar, `summary-updated` marks the analysis done, `session-failed` turns it into an error
 * document (the tab stays, showing why). Summaries are `markRaw`: they are replaced whole and
 * never mutated, so deep reactivity would only cost proxies.
 *
 * Three kinds of document: a file (optionally one AppDomain section of a CF heap log, `select`),
 * a live capture of a process (a session whose file, the saved .gcdump, exists once the capture is
 * done; `capture` carries its progress until then), and a live GC monitor (no session: its rows
 * live in the monitors store; the document only gives it a tab).
 */
export type DocId = string;
export type DocKind = 'file' | 'capture' | 'monitor';
/** opening → parsing → analysing (types usable; dominators running) → ready; or failed / cancelled. */
export type DocPhase = 'opening' | 'parsing' | 'analysing' | 'ready' | 'failed' | 'cancelled';

export interface LoadProgress {
  stage: 'parse' | 'analysis';
  phase: string;
  done: number;
  total: number;
}

export interface LiveProcess {
  pid: number;
  name: string | null;
}

export interface CaptureProgress {
  phase: CapturePhase;
  bytes: number;
  elapsedMs: number;
}

export interface DocumentState {
  id: DocId;
  kind: DocKind;
  title: string;
  /** The snapshot file; null for a monitor, and for a capture until the back end named its file. */
  file: FileEntry | null;
  /** AppDomain section of a CF heap log (the `select` of open), null for the file's default. */
  select: string | null;
  /** The process of a capture or a monitor. */
  process: LiveProcess | null;
  /** A capture's progress before its session is ready. */
  capture: CaptureProgress | null;
  sessionId: SessionId | null;
  phase: DocPhase;
  progress: LoadProgress | null;
  summary: SnapshotSummary | null;
  error: AppErrorDto | null;
  openedAt: number;
}

export interface AppMessage {
  id: number;
  kind: 'error' | 'info';
  title: string;
  detail: string;
  docId: DocId | null;
}

let nextDoc = 1;
let nextMessage = 1;

export const useDocumentsStore = defineStore('documents', () => {
  const docs = ref<Record<DocId, DocumentState>>({});
  const messages = ref<AppMessage[]>([]);
  const busy = ref(false);
  /** Load promises, for tests and callers that must wait (not state: never rendered). */
  const settling = new Map<DocId, Promise<void>>();
  /** Restored documents whose file must be found again by path before loading (see `reopen`). */
  const byPath = new Set<DocId>();
  let unsubscribe: (() => void)[] = [];

  const list = computed(() => Object.values(docs.value));
  const bySession = (sessionId: SessionId): DocumentState | undefined => list.value.find((d) => d.sessionId === sessionId);

  /** Subscribe to the back end's session events; call once after the client is connected. */
  function attach(): void {
    detach();
    const client = useClient();
    unsubscribe = [
      client.on('load-progress', onProgress),
      client.on('session-preliminary', (e) => applySummary(e.sessionId, e.summary)),
      client.on('session-ready', (e) => applySummary(e.sessionId, e.summary)),
      client.on('summary-updated', (e) => applySummary(e.sessionId, e.summary)),
      client.on('session-failed', (e) => {
        const d = bySession(e.sessionId);
        if (d) fail(d, e.error);
      }),
      client.on('session-closed', onClosed),
      client.on('capture-progress', (e) => {
        const d = bySession(e.sessionId);
        if (d && d.phase !== 'failed' && d.phase !== 'cancelled') d.capture = { phase: e.phase, bytes: e.bytes, elapsedMs: e.elapsedMs };
      }),
      client.on('busy', (e) => {
        busy.value = e.busy;
      }),
    ];
  }

  function detach(): void {
    for (const u of unsubscribe) u();
    unsubscribe = [];
  }

  function onProgress(e: HeapscopeEvents['load-progress']): void {
    const d = bySession(e.sessionId);
    if (!d || d.phase === 'failed' || d.phase === 'cancelled') return;
    d.progress = { stage: e.stage, phase: e.phase, done: e.done, total: e.total };
    d.capture = null; // a capture's snapshot is saved: it is being read like any file now
    if (e.stage === 'analysis' && d.phase === 'parsing') d.phase = 'analysing';
  }

  function onClosed(e: HeapscopeEvents['session-closed']): void {
    const d = bySession(e.sessionId);
    if (!d) return; // closed by us: the document is already gone
    if (e.reason === 'worker-crashed') fail(d, { code: 'worker/crashed', message: 'the worker holding this snapshot stopped unexpectedly' });
    d.sessionId = null;
  }

  function applySummary(sessionId: SessionId, summary: SnapshotSummary): void {
    const d = bySession(sessionId);
    if (!d || d.phase === 'failed' || d.phase === 'cancelled') return;
    // A dump's type rows while it still loads (session-preliminary): the tab opens on them, the
    // load goes on (still 'parsing': its bar and Cancel stay), session-ready replaces the summary.
    if (summary.preliminary) {
      if (d.summary) return; // never replaces a real summary (events from one worker come in order)
      d.summary = markRaw(summary);
      return;
    }
    d.summary = markRaw(summary);
    d.file = summary.file;
    d.capture = null;
    const domain = sectionTitle(summary);
    if (domain) d.title = `${summary.file.name} — ${domain}`;
    const a = summary.analysis.state;
    d.phase = a === 'pending' || a === 'running' ? 'analysing' : 'ready';
    if (d.phase === 'ready') d.progress = null;
  }

  function fail(d: DocumentState, error: AppErrorDto): void {
    d.phase = error.code === 'cancelled' ? 'cancelled' : 'failed';
    d.error = error;
    if (d.summary?.preliminary) d.summary = null; // its rows were of a load that did not finish
    d.progress = null;
  }

  function add(init: Pick<DocumentState, 'kind' | 'title' | 'file' | 'select' | 'process'>, phase: DocPhase = 'opening'): DocId {
    const id: DocId = `doc-${nextDoc++}`;
    docs.value[id] = { id, ...init, capture: null, sessionId: null, phase, progress: null, summary: null, error: null, openedAt: Date.now() };
    return id;
  }

  /**
   * Start loading `file` (one section of a multi-section CF heap log when `select` is given);
   * returns the new document's id at once (the load continues in the background).
   */
  function open(file: FileEntry, select?: string): DocId {
    const title = select === undefined ? file.name : `${file.name} — section ${select}`;
    const id = add({ kind: 'file', title, file, select: select ?? null, process: null });
    settling.set(id, load(id));
    return id;
  }

  /**
   * A document of a saved session (saved-session.ts): `file` is the entry saved before the reload
   * or restart, whose token may be unknown to this back end. The load first asks for the file
   * again by its path (registerPath via 'restore': a fresh token, or the same one while the same
   * server runs, uploads included); a file that is gone fails there with its coded error, and the
   * tab stays to show it. Retry asks again.
   */
  function reopen(file: FileEntry, select: string | null): DocId {
    const title = select === null ? file.name : `${file.name} — section ${select}`;
    const id = add({ kind: 'file', title, file, select, process: null });
    byPath.add(id);
    settling.set(id, load(id));
    return id;
  }

  /** Capture a heap snapshot of a live process into a new document (the tab shows the capture's progress). */
  function capture(process: LiveProcess): DocId {
    const id = add({ kind: 'capture', title: `${process.name ?? 'process'} (pid ${process.pid})`, file: null, select: null, process });
    settling.set(id, load(id));
    return id;
  }

  /** A tab for a live GC monitor; the monitors store runs it. */
  function addMonitor(process: LiveProcess): DocId {
    return add({ kind: 'monitor', title: `GCs · ${process.name ?? 'process'} (pid ${process.pid})`, file: null, select: null, process }, 'ready');
  }

  async function load(id: DocId): Promise<void> {
    const client = useClient();
    const d = () => docs.value[id];
    try {
      const doc = d();
      let info;
      if (byPath.has(id)) {
        const file = await client.registerPath({ path: doc.file!.displayPath, via: 'restore' });
        if (!d()) return;
        byPath.delete(id);
        d().file = file;
      }
      if (doc.kind === 'capture') info = await client.captureProcess({ pid: doc.process!.pid });
      else info = await client.open(doc.select === null ? { fileToken: doc.file!.token } : { fileToken: doc.file!.token, select: doc.select });
      if (!d()) {
        // closed while the back end was starting the session: free it right away
        await client.close({ sessionId: info.sessionId }).catch(() => undefined);
        return;
      }
      d().sessionId = info.sessionId;
      d().file = info.file;
      if (d().phase === 'opening') d().phase = 'parsing';
      const summary = await client.summary({ sessionId: info.sessionId });
      if (d()) applySummary(info.sessionId, summary);
    } catch (e) {
      // A load that fails fast sends `session-failed` (the real cause) and drops the session before
      // our summary() call arrives, which then only finds it gone: keep the first error.
      if (d() && !d().error) fail(d(), toDto(e));
    }
  }

  /** Resolves when the document's load has finished one way or the other (never rejects). */
  function whenSettled(id: DocId): Promise<void> {
    return settling.get(id) ?? Promise.resolve();
  }

  /** Parsing: the session fails with `cancelled`. Analysis: only the dominator analysis stops. */
  async function cancel(id: DocId): Promise<void> {
    const d = docs.value[id];
    if (!d?.sessionId || (d.phase !== 'parsing' && d.phase !== 'analysing')) return;
    try {
      await useClient().cancel({ sessionId: d.sessionId });
    } catch (e) {
      report(e, id);
    }
  }

  /** "Compute again" after the dominator analysis was cancelled or failed (issue 14): the session stays open, only the analysis reruns. */
  async function computeAgain(id: DocId): Promise<void> {
    const d = docs.value[id];
    if (!d?.sessionId || d.phase !== 'ready') return;
    try {
      const summary = await useClient().computeAgain({ sessionId: d.sessionId });
      // a fast analysis may already have announced its end (summary-updated): never go back to 'running'
      if (d.sessionId && d.summary?.analysis.state !== 'done') applySummary(d.sessionId, summary);
    } catch (e) {
      report(e, id);
    }
  }

  /**
   * "What if" (issue 16): replace the tab's ignore list (`[]` restores the original analysis). The
   * back end answers with the summary of a recompute that has started; when the recompute is quick
   * its end (summary-updated) may come first, and is then kept.
   */
  async function setIgnored(id: DocId, rules: IgnoreRuleDto[]): Promise<void> {
    const d = docs.value[id];
    if (!d?.sessionId || (d.phase !== 'ready' && d.phase !== 'analysing')) return;
    try {
      const summary = await useClient().setIgnored({ sessionId: d.sessionId, rules });
      const cur = d.summary;
      const same = JSON.stringify(cur?.ignored?.items.map((x) => x.rule) ?? []) === JSON.stringify(summary.ignored?.items.map((x) => x.rule) ?? []);
      if (d.sessionId && !(same && cur?.analysis.state === 'done')) applySummary(d.sessionId, summary);
    } catch (e) {
      report(e, id);
    }
  }

  /** Forget the document and free its worker memory (a failed load has no session left to close). */
  async function close(id: DocId): Promise<void> {
    const d = docs.value[id];
    if (!d) return;
    const sessionId = d.sessionId;
    const alive = d.phase !== 'failed' && d.phase !== 'cancelled';
    delete docs.value[id];
    settling.delete(id);
    byPath.delete(id);
    messages.value = messages.value.filter((m) => m.docId !== id);
    if (sessionId && alive) {
      try {
        await useClient().close({ sessionId });
      } catch (e) {
        if (toDto(e).code !== 'session/not-found') report(e, null);
      }
    }
  }

  /** Load a failed or cancelled document's file again, in the same document (and tab). */
  function retry(id: DocId): void {
    const d = docs.value[id];
    if (!d || (d.phase !== 'failed' && d.phase !== 'cancelled')) return;
    Object.assign(d, { sessionId: null, phase: 'opening', progress: null, capture: null, summary: null, error: null, openedAt: Date.now() });
    settling.set(id, load(id));
  }

  /** Show an error (or an info line with `kind: 'info'`) in the banner; errors from grids and exports land here. */
  function report(e: unknown, docId: DocId | null, kind: 'error' | 'info' = 'error'): void {
    const text = kind === 'error' ? describeError(e) : { title: String(e), detail: '' };
    if (kind === 'error' && toDto(e).code === 'cancelled') return; // the user asked for it: not an error to show
    messages.value = [...messages.value.slice(-4), { id: nextMessage++, kind, title: text.title, detail: text.detail, docId }];
  }

  function dismiss(messageId: number): void {
    messages.value = messages.value.filter((m) => m.id !== messageId);
  }

  return { docs, list, messages, busy, attach, detach, open, reopen, capture, addMonitor, whenSettled, cancel, close, retry, report, dismiss, computeAgain, setIgnored };
});

/** "AppDomain name" (or "section N") of one section of a multi-section CF heap log; null otherwise. */
export function sectionTitle(s: SnapshotSummary): string | null {
  const extra = s.metadata.extra;
  if (Number(extra.sectionCount ?? 1) <= 1) return null;
  return typeof extra.appDomain === 'string' && extra.appDomain ? extra.appDomain : `section ${extra.sectionIndex ?? '?'}`;
}

/** Where a document comes from, for tooltips and panels: the file's path or the process. */
export function docLocation(d: DocumentState): string {
  if (d.file) return d.file.displayPath;
  return d.process ? `process ${d.process.pid}${d.process.name ? ` (${d.process.name})` : ''}` : '';
}

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useDocumentsStore, import.meta.hot));
