import type { FileEntry, MonitorId } from './dtos-session.js';
import type { GcTimelineSummaryDto } from './dtos-views.js';
import type { AppErrorDto } from './result.js';

/** Contract DTOs (see contract.ts for the rules) of live .NET processes: capture and GC monitor. */

// ---------------------------------------------------------------- live processes: capture and GC monitor

/** A running .NET process with a diagnostics endpoint this user can open (`listProcesses`). */
export interface DotnetProcessInfo {
  pid: number;
  /** Entry assembly (from the runtime's ProcessInfo), else the OS process name; null when unknown. */
  name: string | null;
  /** CLR version reported by the runtime ("10.0.0"); null when the process did not answer. */
  runtimeVersion: string | null;
  commandLine: string | null;
  /** Why the runtime did not answer ProcessInfo (it may still be capturable), else null. */
  note: string | null;
}

/**
 * Capture a heap snapshot of `pid` (what dotnet-gcdump does, no .NET tool needed). Resolves at once
 * with a loading session; `capture-progress` events follow, then `session-ready` as for a file.
 * Fails at once with process/not-found or process/not-dotnet; later failures (process/exited,
 * process/timeout, process/denied, cancelled) arrive as `session-failed`. `cancel({sessionId})`
 * stops the capture. The snapshot is saved as a .gcdump in the app's capture cache (the session's
 * `file`, source 'capture'), so it can be reopened, diffed and saved elsewhere (`saveSnapshot`).
 */
export interface CaptureReq {
  pid: number;
  /** Overall limit (default 60 s, at most 600). */
  timeoutSec?: number;
}

/**
 * Have `pid`'s own runtime write a process dump (`heapscope dump`) into the app's capture folder:
 * `heap` (default) = WithHeap, `full` = every mapped page. Resolves when the file is written (the
 * target is suspended meanwhile); the file is added to Recent files. It opens like any snapshot
 * (`openFile`), read by the dump helper; without the built helper that fails with
 * dump/helper-missing. Errors: process/not-found, process/not-dotnet, dump/refused, dump/process-exited, dump/timeout.
 */
export interface CaptureDumpReq {
  pid: number;
  kind?: 'heap' | 'full';
  /** Wait for the runtime's answer (default 120 s, at most 600). */
  timeoutSec?: number;
}

export interface CaptureDumpResult {
  file: FileEntry;
  kind: 'heap' | 'full';
  pid: number;
  /** File size in bytes. */
  bytes: number;
  /** From the request to the runtime's answer. */
  ms: number;
}

/** 'saving' (writing the .gcdump) follows the collector's own phases. */
export type CapturePhase = 'connecting' | 'flushing types' | 'walking heap' | 'reading rundown' | 'building graph' | 'saving';

/** A GC monitor: started by `startGcMonitor`, rows streamed by `gc-monitor-rows`. */
export interface GcMonitorInfo {
  monitorId: MonitorId;
  pid: number;
  name: string | null;
  runtimeVersion: string | null;
  /** Epoch ms when the EventPipe session started. */
  startedAt: number;
  /** Rows kept by the back end (oldest dropped first); `gcMonitorRows` and the CSV export see these. */
  maxRows: number;
}

export type GcMonitorStopReason = 'user' | 'exited' | 'failed';

export interface GcMonitorStatus {
  monitorId: MonitorId;
  pid: number;
  state: 'running' | 'stopped';
  stopReason: GcMonitorStopReason | null;
  error: AppErrorDto | null;
  /** GCs seen since the start; row positions are 0…total−1. */
  total: number;
  /** Positions before this one were dropped from the bounded buffer. */
  firstKept: number;
  /** Over every GC seen (not only the kept rows); durations are since the monitor started. */
  summary: GcTimelineSummaryDto;
}

/** Rows [start, end) by absolute position; positions already dropped are skipped (`start` of the answer says where it begins). */
export interface GcMonitorRowsReq {
  monitorId: MonitorId;
  start: number;
  end: number;
}
