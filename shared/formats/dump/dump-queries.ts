import { AppError, type ErrorCode } from '../../errors.js';

/**
 * The answers of the dump helper's queries (electron/dump-reader/QueryServer.cs): runtime info,
 * threads with stacks and the objects their frames root, one object's fields and values. They are
 * small, so the helper writes each as one line of JSON (the heap itself stays a binary stream).
 * These types are also what crosses the IPC contract and what `heapscope runtime|threads|object
 * --format json` prints (README, CLI section). Addresses are hex strings ("0x7f…"): 64-bit
 * addresses do not fit a JSON number exactly.
 */

export interface DumpRuntimeInfo {
  clrVersion: string;
  /** "Core" for .NET Core/5+, "Desktop" for .NET Framework. */
  flavor: string;
  /** The runtime library in the dump (libcoreclr.so, coreclr.dll…), as the dump names it. */
  runtimeModule: string;
  /** The DAC file the dump reader loaded for this runtime (= dac.file; null only from helpers older than the dac field). */
  dacFile: string | null;
  /** Which DAC was loaded and what ties it to the dump's runtime (absent from older helpers). */
  dac?: DumpDacChoice;
  /** ClrMD's DAC candidates for the dump's runtime, in the order it tries them. */
  dacCandidates?: DumpDacCandidate[];
  pointerSize: number;
  architecture: string;
  platform: string;
  processId: number;
  serverGC: boolean;
  heapCount: number;
  threadCount: number;
  appDomains: DumpAppDomain[];
  modules: DumpModule[];
}

/** The DAC the dump reader loaded (electron/dump-reader/DacChoice.cs). */
export interface DumpDacChoice {
  file: string;
  /** candidate: a file on disk in ClrMD's list; locator: found by ClrMD's file locator (Windows DACs); runtime-directory: the DAC beside the runtime library the dump names. */
  source: 'candidate' | 'locator' | 'runtime-directory';
  /** Index in dacCandidates; −1 for runtime-directory. */
  candidate: number;
  /** build-id: the runtime library beside the DAC has the dump's runtime build id; version: the DAC's file version equals the dump's runtime version; none: neither holds (loaded anyway, mismatches ignored). */
  matchedBy: 'build-id' | 'version' | 'none';
  /** The DAC file's own version ("10.0.1226.42308"), null when it carries none. */
  dacVersion: string | null;
  /** The dump's runtime version as ClrMD reads it ("0.0" when the dump carries no version resource). */
  runtimeVersion: string;
  /** Build id (hex) of the runtime library in the dump; null when it has none (Windows PE). */
  runtimeBuildId: string | null;
  /** Build id (hex) of the runtime library beside the DAC on this machine; null when there is none (or not ELF). */
  localRuntimeBuildId: string | null;
}

export interface DumpDacCandidate {
  /** A full path (a file ClrMD matched on this machine) or a bare file name (to be found by build id or timestamp/size). */
  file: string;
  platform: string;
  architecture: string;
  buildId: string | null;
  indexTimeStamp: number;
  indexFileSize: number;
  onDisk: boolean;
}

export interface DumpAppDomain {
  id: number;
  name: string;
  /** "system", "shared" (.NET Framework only) or "app". */
  kind: 'system' | 'shared' | 'app';
  address: string;
  moduleCount: number;
  applicationBase?: string;
}

export interface DumpModule {
  name: string;
  assemblyName: string;
  /** Bytes of the module's image as the runtime reports it. */
  size: number;
  imageBase: string;
  isDynamic: boolean;
  isPEFile: boolean;
  /** −1 when the module belongs to no AppDomain. */
  appDomainId: number;
}

export interface DumpThreads {
  threads: DumpThread[];
}

export interface DumpThread {
  osThreadId: number;
  managedThreadId: number;
  /** Thread.Name: the managed System.Threading.Thread object's _name; null when unnamed or the object is not in the dump (absent from older helpers). */
  name?: string | null;
  /** Address of the thread's managed System.Threading.Thread object; null when the runtime holds no handle to one. */
  managedObject?: string | null;
  /** The runtime's Thread object (native), not a managed heap address. */
  address: string;
  alive: boolean;
  background: boolean;
  /** A GC thread (server GC, or background GC). */
  gc: boolean;
  finalizer: boolean;
  threadPool: boolean;
  gcMode: string;
  /** The runtime's thread-state flags that are set (TS_Background, TS_Dead…). */
  state: string[];
  /** The thread's current (last thrown, still handled) exception, if any. */
  exception: { type: string; message: string | null; address: string; hresult: number } | null;
  /** Innermost first; at most 500 (framesTruncated). */
  frames: DumpFrame[];
  /** Stack roots the runtime reports for frames not in the list. */
  otherRoots: DumpFrameRoot[];
  framesTruncated: boolean;
}

/** "background, finalizer": a thread's flags as the CLI's `threads` table and the app's Threads view list them. */
export function threadFlags(t: DumpThread): string {
  const f = [t.background ? 'background' : 'foreground'];
  if (t.finalizer) f.push('finalizer');
  if (t.gc) f.push('GC');
  if (t.threadPool) f.push('thread pool');
  if (!t.alive) f.push('dead');
  return f.join(', ');
}

export interface DumpFrame {
  /** "managed": a method; "runtime": a runtime transition frame (frameName says which). */
  kind: 'managed' | 'runtime' | 'unknown';
  /** Method signature with its type, e.g. "HeapscopeTest.ParkedWorker.HoldLocals(System.Threading.ManualResetEventSlim)". */
  method: string | null;
  frameName: string | null;
  /** File name of the method's module. */
  module: string | null;
  instructionPointer: string;
  stackPointer: string;
  /** The objects this frame keeps alive, as the GC reports them (one object may appear twice: a register and a stack slot). */
  roots: DumpFrameRoot[];
}

export interface DumpFrameRoot {
  address: string;
  type: string;
  /** The slot points inside the object (an interior pointer). */
  interior: boolean;
  pinned: boolean;
  register?: string;
}

export interface DumpObject {
  address: string;
  type: string;
  methodTable: string;
  module: string | null;
  /** Shallow size in bytes, as the GC counts it. */
  size: number;
  generation: 'gen0' | 'gen1' | 'gen2' | 'loh' | 'poh' | 'frozen' | 'unknown';
  /** For a System.String: its text, at most `chars` UTF-16 units. */
  string: { value: string; length: number; truncated: boolean } | null;
  array: { length: number; rank: number; elementType: string; elements: DumpValue[]; truncated: boolean } | null;
  fields: DumpField[];
}

export interface DumpField {
  name: string;
  declaredType: string;
  /** Byte offset from the start of the field data (after the method-table pointer; SOS's dumpobj adds the pointer size). */
  offset: number;
  value: DumpValue;
}

/**
 * One stored value. `text` is always a display form. primitive: number for ≤32-bit integers and
 * floating point (NaN and infinities as strings), boolean, one-character string for char, decimal
 * string for 64-bit integers, hex string for pointers. enum: the underlying integer as a number,
 * or as a decimal string past ±2^53 (a 64-bit enum), and the constant's name when one equals it.
 */
export type DumpValue =
  | { kind: 'primitive'; value: number | boolean | string; text: string }
  | { kind: 'enum'; value: number | string; name: string | null; text: string }
  | { kind: 'string'; address: string; type: string; value: string; length: number; truncated: boolean; text: string }
  | { kind: 'reference'; address: string; type: string; text: string }
  | { kind: 'null'; text: string }
  | { kind: 'struct'; type: string; fields: DumpField[]; text: string }
  | { kind: 'unreadable'; text: string };

export type DumpQuery = { query: 'runtime' } | { query: 'threads' } | { query: 'object'; address: string; elements?: number; chars?: number };

export interface DumpQueryResults {
  runtime: DumpRuntimeInfo;
  threads: DumpThreads;
  object: DumpObject;
}

interface AnswerLine {
  id?: number;
  ok?: boolean;
  ready?: boolean;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; detail?: unknown };
}

const KNOWN_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'dump/no-clr', 'dump/dac-missing', 'dump/corrupt', 'dump/query-failed', 'object/not-found',
  'io/not-found', 'io/denied', 'usage/bad-argument', 'dump/helper-crashed',
]);

/** One answer line of the helper, parsed; a line that is not JSON is the helper misbehaving. */
export function parseAnswerLine(line: string): AnswerLine {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new AppError('dump/helper-crashed', `the dump reader wrote a line that is not an answer: ${line.slice(0, 200)}`);
  }
  if (typeof v !== 'object' || v === null) throw new AppError('dump/helper-crashed', `the dump reader wrote a line that is not an answer: ${line.slice(0, 200)}`);
  return v as AnswerLine;
}

/** The coded error of a failed answer (codes the helper does not document become dump/query-failed). */
export function answerError(a: AnswerLine): AppError {
  const code = typeof a.error?.code === 'string' && KNOWN_CODES.has(a.error.code) ? (a.error.code as ErrorCode) : 'dump/query-failed';
  const message = typeof a.error?.message === 'string' ? a.error.message : 'the dump query failed';
  const detail = typeof a.error?.detail === 'string' && a.error.detail !== '' ? { file: a.error.detail } : undefined;
  return new AppError(code, message, detail);
}

/**
 * Why the loaded DAC fits the dump, in one line (CLI `runtime` table, Summary's runtime card):
 * where the file came from and which check tied it to the dump's runtime.
 */
export function dacMatchText(d: DumpDacChoice): string {
  const where =
    d.source === 'runtime-directory'
      ? 'found beside the runtime library the dump names'
      : d.source === 'locator'
        ? `found by ClrMD's file locator (candidate ${d.candidate})`
        : `ClrMD's candidate ${d.candidate}`;
  const why =
    d.matchedBy === 'build-id'
      ? `matched by build id ${d.runtimeBuildId} (the runtime library beside it is the dump's build)`
      : d.matchedBy === 'version'
        ? `matched by version ${d.runtimeVersion}`
        : `not matched: ${d.runtimeBuildId ? `the dump's runtime build id is ${d.runtimeBuildId}, the runtime beside the DAC ${d.localRuntimeBuildId ?? 'has none'}` : `DAC version ${d.dacVersion ?? 'unknown'}, runtime ${d.runtimeVersion}`}; loaded with mismatches ignored`;
  return `${where}; ${why}`;
}
