import { AppError, CancelledError } from '../../../shared/errors.js';
import type { ProgressSink } from '../../../shared/util/progress.js';
import { pluralIsAre } from '../../../shared/util/plural.js';
import type { Writer } from '../output.js';
import { SnapshotWorker, type CancelSignal } from './snapshot-worker-client.js';
import type { OpenedInfo, QueryName } from './snapshot-worker.js';

/**
 * The snapshots `heapscope mcp` holds open, by id ("s1", "s2", …), each in its own worker thread
 * (snapshot-worker.ts), so the main thread only routes messages and never waits on an analysis.
 *
 * A snapshot stays loaded until close_snapshot or the end of the session, so an assistant's
 * follow-up questions cost no reload. At most `maxOpen` snapshots are open or opening at once:
 * one more is the coded error `mcp/too-many-snapshots`, so a chatty assistant cannot exhaust
 * memory by opening every file it sees. An id is given only when an open succeeds; a failed or
 * cancelled open frees its slot at once, and its thread ends (and with it whatever it had read)
 * once the reader has stopped (SnapshotWorker.retire: no dump helper process is left behind).
 */
export interface SnapshotRef {
  id: string;
  /** The path as given to open_snapshot. */
  path: string;
  /** The file name (no directory). */
  name: string;
  worker: SnapshotWorker;
}

export { DEFAULT_MAX_OPEN } from './limits.js';

/**
 * How long a cancelled or closed snapshot's thread may take to wind down before it is terminated
 * anyway. Readers and analyses see the flag within milliseconds and a dump read within 100 ms;
 * the limit only matters for a reader between checks (its memory is held that long at most).
 */
export const CANCEL_GRACE_MS = 5000;

export class SnapshotStore {
  private readonly open = new Map<string, SnapshotRef>();
  private nextId = 1;
  /** Opens under way count against the limit too (two concurrent opens cannot both pass it). */
  private readonly loading = new Set<SnapshotWorker>();
  /** Every worker whose thread has not exited yet. */
  private readonly threads = new Set<SnapshotWorker>();

  constructor(
    readonly maxOpen: number,
    private readonly stderr: Writer,
    private readonly graceMs: number = CANCEL_GRACE_MS,
  ) {}

  async openFile(path: string, select?: string, progress?: ProgressSink, signal?: CancelSignal): Promise<SnapshotRef & { info: OpenedInfo }> {
    const held = this.open.size + this.loading.size;
    if (held >= this.maxOpen) {
      const what = `${pluralIsAre(held, 'snapshot')} open${this.loading.size > 0 ? ' or opening' : ''}`;
      throw new AppError('mcp/too-many-snapshots', `${what} (the limit is ${this.maxOpen}): close one with close_snapshot first`, { open: held, limit: this.maxOpen });
    }
    if (signal?.aborted) throw new CancelledError('open_snapshot cancelled');
    let ref: SnapshotRef | null = null;
    const worker = new SnapshotWorker((e) => this.crashed(ref, e));
    this.threads.add(worker);
    void worker.exited.then(() => this.threads.delete(worker));
    this.loading.add(worker);
    // the answer is refused now and the slot freed; the thread ends once its reader has stopped
    const cancel = () => void worker.retire(new CancelledError('open_snapshot cancelled'), this.graceMs);
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const info = await worker.open(path, select, progress);
      ref = { id: `s${this.nextId++}`, path, name: info.file, worker };
      this.open.set(ref.id, ref);
      return { ...ref, info };
    } catch (e) {
      void worker.retire(e instanceof AppError ? e : new CancelledError('open failed'), this.graceMs);
      throw e;
    } finally {
      this.loading.delete(worker);
      signal?.removeEventListener('abort', cancel);
    }
  }

  get(id: string): SnapshotRef {
    const s = this.open.get(id);
    if (!s) throw unknownSnapshot(id, [...this.open.keys()]);
    return s;
  }

  /** Runs a tool's query in the snapshot's worker (QUERIES in snapshot-worker.ts); `signal` cancels it. */
  query<T = unknown>(id: string, op: QueryName, args: unknown, signal?: CancelSignal): Promise<T> {
    return this.get(id).worker.query<T>(id, op, args, signal);
  }

  /** Forgets the snapshot now and ends its thread (its memory goes with it). */
  close(id: string): SnapshotRef {
    const s = this.get(id);
    this.open.delete(id);
    void s.worker.retire(new AppError('session/not-found', `snapshot ${id} was closed`, { snapshot: id }), this.graceMs);
    return s;
  }

  list(): SnapshotRef[] {
    return [...this.open.values()];
  }

  /** Threads still running (open snapshots, opens under way, and threads still shutting down). */
  workerCount(): number {
    return this.threads.size;
  }

  /** Closes every snapshot, stops any open under way, and waits for their threads to end (the end of a session). */
  async closeAll(): Promise<void> {
    this.open.clear();
    const all = [...this.threads];
    await Promise.all(all.map((w) => w.retire(new AppError('session/not-found', 'the MCP session ended'), this.graceMs)));
  }

  /** A worker that died on its own (out of memory, crash): its snapshot is gone; the error says why once, on stderr. */
  private crashed(ref: SnapshotRef | null, e: AppError): void {
    if (ref && this.open.get(ref.id) === ref) this.open.delete(ref.id);
    this.stderr.write(`heapscope mcp: ${ref ? `snapshot ${ref.id} (${ref.name})` : 'an open_snapshot'} lost its worker: ${e.code}: ${e.message}\n`);
  }
}

function unknownSnapshot(id: string, open: string[]): AppError {
  const which = open.length ? `open: ${open.join(', ')}` : 'none is open; call open_snapshot first';
  return new AppError('session/not-found', `no open snapshot "${id}" (${which})`, { snapshot: id });
}
