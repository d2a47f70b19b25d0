/**
 * The .NET diagnostics IPC wire format (../shared/spec/diagnostics-ipc.md): request encoding and
 * response decoding. Pure bytes in, bytes out — the socket lives in electron/diagnostics.
 *
 * One command per connection; every message is a 20-byte header ("DOTNET_IPC_V1\0", u16 total
 * size, command set, command id, reserved) followed by the payload. All integers little-endian.
 */

export const IPC_MAGIC = 'DOTNET_IPC_V1\0';
export const IPC_HEADER_SIZE = 20;

export const CommandSet = { Dump: 0x01, EventPipe: 0x02, Profiler: 0x03, Process: 0x04, Server: 0xff } as const;
export const EventPipeCommand = { StopTracing: 0x01, CollectTracing: 0x02, CollectTracing2: 0x03, CollectTracing6: 0x07 } as const;
export const ProcessCommand = { ProcessInfo: 0x00, ProcessInfo2: 0x04, ProcessInfo3: 0x08 } as const;

/** HRESULTs the runtime answers with (spec §3.3). */
export const HResult = {
  BadEncoding: 0x80131384,
  UnknownCommand: 0x80131385,
  UnknownMagic: 0x80131386,
  NotSupported: 0x80131515,
} as const;

export interface ProviderConfig {
  name: string;
  keywords: bigint;
  /** 0 LogAlways … 4 Informational, 5 Verbose. */
  level: number;
  arguments?: string;
}

/** Runtime provider keywords used for a heap snapshot: GC | Type | GCHeapDump | GCHeapCollect | GCHeapAndTypeNames. */
export const HEAP_SNAPSHOT_KEYWORDS = 0x1980001n;
/**
 * GCHeapSurvivalAndMovement: makes the runtime log GCGenerationRange at the start and end of each
 * GC. dotnet-gcdump does not enable it (so its files have no generation data); `heapscope collect`
 * adds it so every object's generation is known.
 */
export const GC_HEAP_SURVIVAL_AND_MOVEMENT_KEYWORD = 0x400000n;
/** GC keyword only, for a live GC timeline (informational level). */
export const GC_KEYWORD = 0x1n;
export const RUNTIME_PROVIDER = 'Microsoft-Windows-DotNETRuntime';
export const SAMPLE_PROFILER_PROVIDER = 'Microsoft-DotNETCore-SampleProfiler';
/** requestRundown = true is this rundown keyword set (spec §5.2). */
export const DEFAULT_RUNDOWN_KEYWORD = 0x80020139n;

/** Little-endian payload writer with growable storage. */
class PayloadWriter {
  private buf = new Uint8Array(256);
  private view = new DataView(this.buf.buffer);
  length = 0;

  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.length++] = v;
    return this;
  }

  u16(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.length, v, true);
    this.length += 2;
    return this;
  }

  u32(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.length, v >>> 0, true);
    this.length += 4;
    return this;
  }

  u64(v: bigint): this {
    this.ensure(8);
    this.view.setBigUint64(this.length, v, true);
    this.length += 8;
    return this;
  }

  /** u32 count of UTF-16 units including the NUL, then UTF-16LE; null → count 0. */
  str(s: string | null): this {
    if (s === null) return this.u32(0);
    this.u32(s.length + 1);
    for (let i = 0; i < s.length; i++) this.u16(s.charCodeAt(i));
    return this.u16(0);
  }

  bytes(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** A complete message: header + payload. */
export function encodeMessage(commandSet: number, commandId: number, payload: Uint8Array = new Uint8Array(0)): Uint8Array {
  const size = IPC_HEADER_SIZE + payload.length;
  if (size > 0xffff) throw new RangeError(`diagnostics IPC message of ${size} bytes exceeds 65,535`);
  const out = new Uint8Array(size);
  for (let i = 0; i < IPC_MAGIC.length; i++) out[i] = IPC_MAGIC.charCodeAt(i);
  const dv = new DataView(out.buffer);
  dv.setUint16(14, size, true);
  out[16] = commandSet;
  out[17] = commandId;
  out.set(payload, IPC_HEADER_SIZE);
  return out;
}

function providers(w: PayloadWriter, list: readonly ProviderConfig[], streaming: boolean): void {
  w.u32(list.length);
  for (const p of list) {
    w.u64(p.keywords).u32(p.level).str(p.name).str(p.arguments ?? '');
    if (streaming) w.u8(0).u32(0); // event filter: deny-list of nothing = every event
  }
}

/** CollectTracing2 (0x0203): the command every runtime since .NET Core 3.1 understands. */
export function collectTracing2(opts: { bufferMB: number; requestRundown: boolean; providers: readonly ProviderConfig[] }): Uint8Array {
  const w = new PayloadWriter().u32(opts.bufferMB).u32(1).u8(opts.requestRundown ? 1 : 0);
  providers(w, opts.providers, false);
  return encodeMessage(CommandSet.EventPipe, EventPipeCommand.CollectTracing2, w.bytes());
}

/** CollectTracing6 (0x0207, .NET 11+): streaming session with a non-lossy (Block) buffer mode. */
export function collectTracing6(opts: {
  bufferMB: number;
  rundownKeyword: bigint;
  requestStackwalk: boolean;
  providers: readonly ProviderConfig[];
  blocking: boolean;
}): Uint8Array {
  const w = new PayloadWriter().u32(0).u32(opts.bufferMB).u32(1).u64(opts.rundownKeyword).u8(opts.requestStackwalk ? 1 : 0);
  providers(w, opts.providers, true);
  w.u32(opts.blocking ? 1 : 0);
  return encodeMessage(CommandSet.EventPipe, EventPipeCommand.CollectTracing6, w.bytes());
}

export function stopTracing(sessionId: bigint): Uint8Array {
  return encodeMessage(CommandSet.EventPipe, EventPipeCommand.StopTracing, new PayloadWriter().u64(sessionId).bytes());
}

export function processInfo(command: number = ProcessCommand.ProcessInfo): Uint8Array {
  return encodeMessage(CommandSet.Process, command);
}

export interface IpcHeader {
  size: number;
  commandSet: number;
  commandId: number;
}

/** Parse a 20-byte header; null when the magic is wrong. */
export function decodeHeader(bytes: Uint8Array): IpcHeader | null {
  if (bytes.length < IPC_HEADER_SIZE) return null;
  for (let i = 0; i < IPC_MAGIC.length; i++) if (bytes[i] !== IPC_MAGIC.charCodeAt(i)) return null;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  return { size: dv.getUint16(14, true), commandSet: bytes[16], commandId: bytes[17] };
}

export type IpcResponse = { ok: true; payload: Uint8Array } | { ok: false; hresult: number; payload: Uint8Array };

/** Classify a response (header + payload). */
export function decodeResponse(header: IpcHeader, payload: Uint8Array): IpcResponse {
  if (header.commandSet === CommandSet.Server && header.commandId === 0x00) return { ok: true, payload };
  const hresult = payload.length >= 4 ? new DataView(payload.buffer, payload.byteOffset, 4).getUint32(0, true) : 0;
  return { ok: false, hresult, payload };
}

export function hresultName(h: number): string {
  switch (h) {
    case HResult.BadEncoding:
      return 'bad encoding';
    case HResult.UnknownCommand:
      return 'unknown command';
    case HResult.UnknownMagic:
      return 'unknown magic';
    case HResult.NotSupported:
      return 'not supported';
    default:
      return '0x' + h.toString(16).padStart(8, '0');
  }
}

/** The session id of a CollectTracing OK response. */
export function decodeSessionId(payload: Uint8Array): bigint {
  if (payload.length < 8) return 0n;
  return new DataView(payload.buffer, payload.byteOffset, 8).getBigUint64(0, true);
}

export interface ProcessInfoDto {
  processId: number;
  commandLine: string | null;
  os: string | null;
  arch: string | null;
  entrypointAssembly: string | null;
  clrVersion: string | null;
  runtimeIdentifier: string | null;
}

/** Decode ProcessInfo / ProcessInfo2 / ProcessInfo3 OK payloads (spec §6). Tolerates short payloads. */
export function decodeProcessInfo(payload: Uint8Array, command: number): ProcessInfoDto {
  const dv = new DataView(payload.buffer, payload.byteOffset, payload.length);
  let p = 0;
  const str = (): string | null => {
    if (p + 4 > payload.length) return null;
    const n = dv.getUint32(p, true);
    p += 4;
    if (n === 0) return null;
    if (p + 2 * n > payload.length) return null;
    let s = '';
    for (let i = 0; i < n - 1; i++) s += String.fromCharCode(dv.getUint16(p + 2 * i, true));
    p += 2 * n;
    return s;
  };
  let version = 0;
  if (command === ProcessCommand.ProcessInfo3 && payload.length >= 4) {
    version = dv.getUint32(0, true);
    p = 4;
  }
  const processId = payload.length >= p + 8 ? Number(dv.getBigUint64(p, true)) : 0;
  p += 8 + 16; // pid, runtime cookie GUID
  const commandLine = str();
  const os = str();
  const arch = str();
  let entrypointAssembly: string | null = null;
  let clrVersion: string | null = null;
  let runtimeIdentifier: string | null = null;
  if (command !== ProcessCommand.ProcessInfo) {
    entrypointAssembly = str();
    clrVersion = str();
  }
  if (command === ProcessCommand.ProcessInfo3 && version >= 1) runtimeIdentifier = str();
  return { processId, commandLine, os, arch, entrypointAssembly, clrVersion, runtimeIdentifier };
}
