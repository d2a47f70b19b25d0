import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppError } from '../../shared/errors.js';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import type { MemoryBudget } from '../../shared/graph/memory-estimate.js';
import { readDumpStream } from '../../shared/formats/dump/dump-graph.js';
import type { TypeHistogramSink } from '../../shared/formats/dump/type-histogram.js';
import type { ByteSource } from '../../shared/util/byte-source.js';
import type { CancellationToken } from '../../shared/util/cancellation.js';
import { NEVER_CANCELLED } from '../../shared/util/cancellation.js';
import type { ProgressSink } from '../../shared/util/progress.js';

/**
 * Runs the dump helper (electron/dump-reader, C# on ClrMD) on a dump file and reads its stdout
 * stream into a HeapGraph. Node-only: shared/ sees the stream as a ByteSource.
 *
 * The child never outlives the read: it is killed when the read fails, is cancelled, or the
 * decoder stops early, and `liveHelpers()` lets tests check that none is left.
 */
export const DUMP_HELPER_DLL = 'heapscope-dump-reader.dll';
/** The self-contained helper's executable (installers: resources/dump-reader/). */
export const DUMP_HELPER_EXE = process.platform === 'win32' ? 'heapscope-dump-reader.exe' : 'heapscope-dump-reader';
export const BUILD_HINT = 'build it with `npm run build:dump-reader` (needs the .NET 10 SDK)';

const here = dirname(fileURLToPath(import.meta.url));

/** How to start the helper: `command ...args DUMPFILE`. */
export interface HelperCommand {
  command: string;
  args: string[];
  /** Where it was found: $HEAPSCOPE_DUMP_READER, the installed app's resources, or a dev build. */
  source: 'env' | 'packaged' | 'dev';
}

/** A helper path as a command: a .dll runs through `dotnet`, anything else is the executable. */
function commandFor(path: string, source: HelperCommand['source']): HelperCommand {
  return path.toLowerCase().endsWith('.dll') ? { command: 'dotnet', args: [path], source } : { command: path, args: [], source };
}

/**
 * The one place that decides which dump helper runs (reading dumps and the queries that ask the
 * helper about one object spawn through it), in this order:
 *
 * 1. $HEAPSCOPE_DUMP_READER: a self-contained executable, or a .dll run with `dotnet`; when set but
 *    missing, nothing else is tried (null), so a wrong setting is not silently ignored;
 * 2. the installed app: resources/dump-reader/heapscope-dump-reader[.exe], the self-contained build
 *    electron-builder places beside app.asar (process.resourcesPath in Electron; bundles running
 *    from app.asar or app.asar.unpacked also look three folders up, since worker threads may not
 *    have process.resourcesPath);
 * 3. a source checkout's dev build, out/dump-reader/heapscope-dump-reader.dll (framework-dependent,
 *    run with `dotnet`; sources under tsx: electron/dump-reader → ../../out; bundles: out/cli or
 *    out/main → ../dump-reader).
 */
export function helperCommand(): HelperCommand | null {
  const env = process.env.HEAPSCOPE_DUMP_READER;
  if (env) return existsSync(env) ? commandFor(env, 'env') : null;
  const resources: string[] = [];
  const resourcesPath = (process as { resourcesPath?: string }).resourcesPath;
  if (resourcesPath) resources.push(resourcesPath);
  if (/[\\/]app\.asar(\.unpacked)?[\\/]/.test(here)) resources.push(resolve(here, '..', '..', '..'));
  for (const dir of resources) {
    const exe = join(dir, 'dump-reader', DUMP_HELPER_EXE);
    if (existsSync(exe)) return { command: exe, args: [], source: 'packaged' };
  }
  for (const dir of [resolve(here, '..', '..', 'out', 'dump-reader'), resolve(here, '..', 'dump-reader'), resolve(here, '..', '..', 'dump-reader')]) {
    const dll = join(dir, DUMP_HELPER_DLL);
    if (existsSync(dll)) return { command: 'dotnet', args: [dll], source: 'dev' };
  }
  return null;
}

/** The helper's file (executable or .dll) helperCommand() would run, or null when there is none. */
export function findDumpHelper(): string | null {
  const c = helperCommand();
  return c ? (c.args.length > 0 ? c.args[c.args.length - 1] : c.command) : null;
}

const live = new Set<ChildProcess>();

/** Helper processes started and not yet exited (tests: no orphans). */
export function liveHelpers(): number {
  return live.size;
}

/**
 * Start the helper with `args` (every helper process starts here: the heap stream and the query
 * server). It counts in liveHelpers() until it exits. `stdin: true` gives a pipe to write requests
 * to (serve mode ends when it closes); otherwise stdin is /dev/null.
 */
export function spawnDumpHelper(helper: string | HelperCommand, args: string[], opts: { dotnet?: string; stdin?: boolean } = {}): ChildProcess {
  // a path: a .dll runs through `dotnet` (or opts.dotnet: tests run a stand-in script with node), an executable runs itself
  const cmd = typeof helper !== 'string' ? helper : opts.dotnet ? { command: opts.dotnet, args: [helper], source: 'env' as const } : commandFor(helper, 'env');
  const child = spawn(cmd.command, [...cmd.args, ...args], {
    stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' },
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.once('error', () => live.delete(child));
  return child;
}

export interface DumpReadOptions {
  token?: CancellationToken;
  /** Gets the helper's PROGRESS records as ('parse', heap bytes walked, heap bytes in all segments). */
  progress?: ProgressSink;
  /** The helper to run (default: helperCommand()); a .dll runs through `dotnet` (or opts.dotnet). */
  helper?: string;
  /** The program that runs a helper that is no executable itself (tests: node runs a stand-in script). */
  dotnet?: string;
  /** The memory a graph may use (memory/too-large before it is built: shared/formats/dump/dump-memory.ts). */
  memoryBudget?: () => MemoryBudget;
  /** The graph's columns in SharedArrayBuffers (ReadOptions.sharedMemory; shared/formats/dump/dump-graph.ts). */
  sharedMemory?: boolean;
  /**
   * The type table before the graph (ReadOptions.typeHistogram): the helper runs its stats pass
   * first (`--type-histogram`), which delays the graph by that pass, so only a host that shows
   * the rows early asks for it.
   */
  typeHistogram?: TypeHistogramSink;
}

function resolveCommand(opts: DumpReadOptions): HelperCommand | null {
  if (opts.helper === undefined) return helperCommand();
  if (!existsSync(opts.helper)) return null;
  if (opts.dotnet) return { command: opts.dotnet, args: [opts.helper], source: 'env' };
  return commandFor(opts.helper, 'env');
}

/** Read the dump at `path` through the helper. */
export async function readDumpFile(path: string, name: string, opts: DumpReadOptions = {}): Promise<HeapGraph> {
  const token = opts.token ?? NEVER_CANCELLED;
  const helper = resolveCommand(opts);
  if (!helper) {
    const why = process.env.HEAPSCOPE_DUMP_READER && opts.helper === undefined ? `HEAPSCOPE_DUMP_READER names ${process.env.HEAPSCOPE_DUMP_READER}, which does not exist` : `it is not built: ${BUILD_HINT}`;
    throw new AppError('dump/helper-missing', `${name} is a process dump; reading dumps needs Heapscope's dump reader, and ${why}`);
  }
  const child = spawnDumpHelper(helper, opts.typeHistogram ? ['--type-histogram', path] : [path]);
  const source = new ChildOutputSource(child, name, token);
  try {
    return await readDumpStream(source, token, opts.progress, opts.memoryBudget, opts.sharedMemory === true, opts.typeHistogram);
  } catch (e) {
    throw await source.explain(e);
  } finally {
    await source.close();
  }
}

/**
 * The child's stdout as a sequential ByteSource (size −1). Unlike a file, a read returns what has
 * arrived (at least one byte, fewer than asked) instead of waiting for the full length: the
 * helper may pause mid-stream (walking statics, loading the DAC), and the decoder (StreamCursor)
 * only needs the record in front of it; an empty read is the end. Chunks are queued as they arrive and
 * stdout is paused while more than `highWater` bytes wait, so a fast helper cannot fill memory
 * ahead of the decoder. While waiting it polls the token (tokens have no callbacks).
 */
class ChildOutputSource implements ByteSource {
  readonly size = -1;
  private queue: Buffer[] = [];
  private queued = 0;
  private consumed = 0;
  private ended = false;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private spawnError: Error | null = null;
  private stderr = '';
  private wake: (() => void) | null = null;
  private static readonly highWater = 8 << 20;

  constructor(
    private readonly child: ChildProcess,
    readonly name: string,
    private readonly token: CancellationToken,
  ) {
    const out = child.stdout!;
    out.on('data', (b: Buffer) => {
      this.queue.push(b);
      this.queued += b.length;
      if (this.queued > ChildOutputSource.highWater) out.pause();
      this.notify();
    });
    out.on('end', () => {
      this.ended = true;
      this.notify();
    });
    child.stderr!.on('data', (b: Buffer) => {
      if (this.stderr.length < 4096) this.stderr += b.toString('utf8');
    });
    child.on('error', (e) => {
      this.spawnError = e;
      this.ended = true;
      live.delete(child);
      this.notify();
    });
    child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      live.delete(child);
      this.notify();
    });
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    if (offset !== this.consumed) throw new AppError('bug', `the dump helper's stream is read in order (asked for ${offset}, at ${this.consumed})`);
    while (this.queued === 0 && !this.ended) {
      this.token.throwIfCancelled();
      this.child.stdout!.resume();
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 100); // poll the token
      });
      this.wake = null;
    }
    if (this.spawnError) throw this.spawnError;
    // The chunk in front as it is when it fits (the decoder copies it into its own buffer
    // anyway): one copy of the stream instead of two, and no 1 MB garbage per read.
    if (this.queued > 0 && this.queue[0].length <= length) {
      const head = this.queue.shift()!;
      this.queued -= head.length;
      this.consumed += head.length;
      if (this.queued <= ChildOutputSource.highWater) this.child.stdout!.resume();
      return head;
    }
    const n = Math.min(length, this.queued);
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const head = this.queue[0];
      const take = Math.min(head.length, n - at);
      out.set(head.subarray(0, take), at);
      at += take;
      if (take === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(take);
    }
    this.queued -= n;
    this.consumed += n;
    if (this.queued <= ChildOutputSource.highWater) this.child.stdout!.resume();
    return out;
  }

  /** Turn a read failure into the error the user should see. */
  async explain(e: unknown): Promise<unknown> {
    if (this.spawnError && (this.spawnError as NodeJS.ErrnoException).code === 'ENOENT') {
      return new AppError('dump/helper-missing', `${this.name} is a process dump; reading it needs the .NET runtime (dotnet) to run Heapscope's dump reader, and it was not found`);
    }
    // A cut-off or garbled stream is the helper dying (killed, out of memory, a crash in the DAC).
    if (e instanceof AppError && (e.code === 'format/truncated' || e.code === 'format/bad-magic')) {
      // stdout closes before the exit event: give the exit status a moment to arrive.
      for (let i = 0; i < 40 && this.exit === null; i++) await new Promise((r) => setTimeout(r, 25));
      const how = this.exit?.signal ? `was killed (${this.exit.signal})` : this.exit ? `exited with code ${this.exit.code}` : 'stopped writing';
      const err = this.stderr.trim().split('\n').slice(-3).join(' | ');
      return new AppError('dump/helper-crashed', `the dump reader ${how} while reading ${this.name}${err ? `: ${err}` : ''}`);
    }
    return e;
  }

  /** Kill the helper if it still runs and wait for its exit, so no read leaves a process behind. */
  async close(): Promise<void> {
    this.child.stdout!.destroy();
    this.child.stderr!.destroy();
    if (this.exit !== null || this.spawnError !== null) return;
    // After END the helper is only closing the dump: a moment to exit by itself, then a kill.
    for (let i = 0; i < 20 && this.exit === null; i++) await new Promise((r) => setTimeout(r, 10));
    if (this.exit === null) this.child.kill('SIGKILL');
    while (this.exit === null && this.spawnError === null) await new Promise((r) => setTimeout(r, 10));
  }

  private notify(): void {
    this.wake?.();
  }
}
