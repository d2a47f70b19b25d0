import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { AppError } from '../../shared/errors.js';
import { answerError, parseAnswerLine, type DumpQuery, type DumpQueryResults } from '../../shared/formats/dump/dump-queries.js';
import { BUILD_HINT, findDumpHelper, spawnDumpHelper } from './helper-process.js';

/**
 * A long-lived `heapscope-dump-reader serve DUMP` for one dump: the helper opens the dump (loads
 * the DAC) once, then answers one JSON line per request (QueryServer.cs), so the inspector's
 * clicks cost a query each, not a reopen. One client per dump tab (and one per CLI query command).
 *
 * Lifecycle: the helper starts on the first query. If it dies (killed, crashed), every request
 * waiting on it fails with dump/helper-crashed and the next query starts a new one. If opening
 * the dump fails (no CLR, DAC missing, corrupt), that coded error is kept and returned for every
 * later query without respawning. close() ends stdin (the helper exits by itself), then kills it
 * if it is still there; a Node process that dies also closes the pipe, so the helper cannot be
 * left behind waiting for requests.
 */
export interface DumpQueryClientOptions {
  helper?: string;
  dotnet?: string;
  /** Start the helper process (tests: a fake child). Default: spawnDumpHelper(helper, ['serve', path]). */
  start?: () => ChildProcess;
  /** A request with no answer after this long kills the helper (it is hung) and fails with dump/helper-crashed. */
  timeoutMs?: number;
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: AppError) => void;
  timer: ReturnType<typeof setTimeout> | null;
}

interface Running {
  child: ChildProcess;
  /** Resolves when the helper said ready; rejects with its open error or its death. */
  ready: Promise<void>;
  exited: Promise<void>;
  stderr: string;
}

export class DumpQueryClient {
  private running: Running | null = null;
  private openError: AppError | null = null;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private closed = false;

  constructor(
    readonly path: string,
    readonly name: string,
    private readonly opts: DumpQueryClientOptions = {},
  ) {}

  /** Ask one query; resolves with its result or rejects with a coded AppError. */
  async query<Q extends DumpQuery>(q: Q): Promise<DumpQueryResults[Q['query']]> {
    if (this.closed) throw new AppError('dump/helper-crashed', `the dump reader for ${this.name} was closed`);
    if (this.openError) throw this.openError;
    const r = this.running ?? this.start();
    await r.ready;
    if (this.closed) throw new AppError('dump/helper-crashed', `the dump reader for ${this.name} was closed`);
    if (this.running !== r) throw new AppError('dump/helper-crashed', `the dump reader for ${this.name} stopped before the query was sent`);
    const id = this.nextId++;
    return new Promise<DumpQueryResults[Q['query']]>((resolve, reject) => {
      const timeoutMs = this.opts.timeoutMs ?? 300_000;
      const timer = setTimeout(() => {
        this.fail(r, `did not answer a ${q.query} query within ${timeoutMs / 1000} s and was stopped`);
        r.child.kill('SIGKILL');
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      r.child.stdin!.write(JSON.stringify({ id, ...q }) + '\n');
    });
  }

  /** Whether a helper process is running for this dump now. */
  get isRunning(): boolean {
    return this.running !== null;
  }

  /** End the helper and wait until it has exited; later queries fail. */
  async close(): Promise<void> {
    this.closed = true;
    const r = this.running;
    if (!r) return;
    this.fail(r, `for ${this.name} was closed`); // what still waits gets that, not "exited with code 0"
    r.child.stdin?.end();
    const killer = setTimeout(() => r.child.kill('SIGKILL'), 2000);
    await r.exited;
    clearTimeout(killer);
  }

  private start(): Running {
    let child: ChildProcess;
    if (this.opts.start) child = this.opts.start();
    else {
      const helper = this.opts.helper ?? findDumpHelper();
      if (!helper || !existsSync(helper)) {
        throw new AppError('dump/helper-missing', `${this.name} is a process dump; reading its objects, threads and runtime needs Heapscope's dump reader, which is not built: ${BUILD_HINT}`);
      }
      child = spawnDumpHelper(helper, ['serve', this.path], { dotnet: this.opts.dotnet, stdin: true });
    }
    let markReady!: () => void;
    let failReady!: (e: AppError) => void;
    const ready = new Promise<void>((res, rej) => {
      markReady = res;
      failReady = rej;
    });
    ready.catch(() => undefined); // observed by query(); no unhandled rejection when nobody waits
    let saidReady = false;
    const r: Running = { child, ready, exited: new Promise((res) => child.once('exit', () => res())), stderr: '' };
    this.running = r;

    let buffered = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.trim() === '') continue;
        let a;
        try {
          a = parseAnswerLine(line);
        } catch (e) {
          this.fail(r, (e as AppError).message);
          child.kill('SIGKILL');
          return;
        }
        if (!saidReady) {
          saidReady = true;
          if (a.ready === true) markReady();
          else {
            // The dump cannot be opened: the same answer every time, so keep it and stop.
            this.openError = answerError(a);
            failReady(this.openError);
          }
          continue;
        }
        const p = typeof a.id === 'number' ? this.pending.get(a.id) : undefined;
        if (!p) continue;
        this.pending.delete(a.id!);
        if (p.timer) clearTimeout(p.timer);
        if (a.ok === true) p.resolve(a.result);
        else p.reject(answerError(a));
      }
    });
    child.stderr!.on('data', (b: Buffer) => {
      if (r.stderr.length < 4096) r.stderr += b.toString('utf8');
    });
    // Writing to a helper that just died: the exit handler reports it.
    child.stdin!.on('error', () => undefined);
    child.on('error', (e: NodeJS.ErrnoException) => {
      const why = e.code === 'ENOENT' ? `${this.name} is a process dump; reading it needs the .NET runtime (dotnet) to run Heapscope's dump reader, and it was not found` : e.message;
      if (e.code === 'ENOENT') this.openError = new AppError('dump/helper-missing', why);
      failReady(this.openError ?? new AppError('dump/helper-crashed', why));
      this.fail(r, why);
    });
    child.once('exit', (code, signal) => {
      const how = signal ? `was killed (${signal})` : `exited with code ${code}`;
      const err = r.stderr.trim().split('\n').slice(-3).join(' | ');
      const why = `the dump reader ${how} while answering queries on ${this.name}${err ? `: ${err}` : ''}`;
      failReady(this.openError ?? new AppError('dump/helper-crashed', why));
      this.fail(r, why);
    });
    return r;
  }

  /** The helper `r` is gone or unusable: fail what waits on it; the next query starts a new one. */
  private fail(r: Running, why: string): void {
    if (this.running !== r) return;
    this.running = null;
    for (const [id, p] of this.pending) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new AppError('dump/helper-crashed', why.startsWith('the dump reader') ? why : `the dump reader ${why}`));
      this.pending.delete(id);
    }
  }
}

/** One query on a dump with a helper started for it and closed after (the CLI commands). */
export async function queryDumpOnce<Q extends DumpQuery>(path: string, name: string, q: Q, opts: DumpQueryClientOptions = {}): Promise<DumpQueryResults[Q['query']]> {
  const client = new DumpQueryClient(path, name, opts);
  try {
    return await client.query(q);
  } finally {
    await client.close();
  }
}
