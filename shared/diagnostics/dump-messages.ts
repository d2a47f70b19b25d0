/**
 * The diagnostics IPC Dump command set (0x01): ask a running .NET process to write a core dump
 * of itself. Pure bytes in, bytes out — the socket lives in electron/diagnostics/dump-writer.ts.
 *
 * Request payload, the same for all three commands (dotnet/runtime ds-dump-protocol.c;
 * DiagnosticsClient.WriteDump in dotnet/diagnostics):
 *   string  dumpName  u32 count of UTF-16 units including the NUL, then UTF-16LE; an absolute
 *                     path, opened by the *target* process (its createdump helper), not by us
 *   u32     dumpType  1 Normal, 2 WithHeap, 3 Triage, 4 Full
 *   u32     flags     GenerateCoreDump: 1 = log the dump generation to the target's console;
 *                     GenerateCoreDump2/3: 1 LoggingEnabled, 2 VerboseLoggingEnabled, 4 CrashReportEnabled
 *
 * Response: OK (0xFF00) with a u32 status, or Error (0xFFFF) with a u32 HRESULT. Only
 * GenerateCoreDump3 adds the runtime's error text after the HRESULT (a string as above); the
 * older commands answer with the bare HRESULT. A runtime that does not know a command answers
 * "unknown command", so clients try 3, then 2, then 1, as DiagnosticsClient.WriteDump does.
 */
import { CommandSet, encodeMessage, hresultName, HResult, type IpcResponse } from './ipc-messages.js';

export const DumpCommand = { GenerateCoreDump: 0x01, GenerateCoreDump2: 0x02, GenerateCoreDump3: 0x03 } as const;

/** The runtime's dump types (DumpType in Microsoft.Diagnostics.NETCore.Client). */
export const DumpType = { Normal: 1, WithHeap: 2, Triage: 3, Full: 4 } as const;

/** WriteDumpFlags; the plain GenerateCoreDump only understands LoggingEnabled. */
export const DumpFlags = { None: 0, LoggingEnabled: 1, VerboseLoggingEnabled: 2, CrashReportEnabled: 4 } as const;

/** The order a client tries the commands in, newest first. */
export const DUMP_COMMANDS_NEWEST_FIRST = [DumpCommand.GenerateCoreDump3, DumpCommand.GenerateCoreDump2, DumpCommand.GenerateCoreDump] as const;

/** One GenerateCoreDump* request (header + payload). */
export function generateCoreDump(command: number, dumpPath: string, dumpType: number, flags: number = DumpFlags.None): Uint8Array {
  const payload = new Uint8Array(4 + 2 * (dumpPath.length + 1) + 8);
  const dv = new DataView(payload.buffer);
  dv.setUint32(0, dumpPath.length + 1, true);
  for (let i = 0; i < dumpPath.length; i++) dv.setUint16(4 + 2 * i, dumpPath.charCodeAt(i), true);
  let p = 4 + 2 * (dumpPath.length + 1); // the terminating NUL is already zero
  dv.setUint32(p, dumpType >>> 0, true);
  p += 4;
  dv.setUint32(p, flags >>> 0, true);
  return encodeMessage(CommandSet.Dump, command, payload);
}

export type DumpResponse =
  | { kind: 'ok' }
  /** The runtime does not know this command: try the next older one. */
  | { kind: 'unknown-command' }
  | { kind: 'error'; hresult: number; message: string | null };

/** Classify the answer to a GenerateCoreDump* request; the error text is read only where the runtime sends one. */
export function decodeDumpResponse(response: IpcResponse, command: number): DumpResponse {
  if (response.ok) return { kind: 'ok' };
  if (response.hresult === HResult.UnknownCommand) return { kind: 'unknown-command' };
  const message = command === DumpCommand.GenerateCoreDump3 ? readErrorText(response.payload) : null;
  return { kind: 'error', hresult: response.hresult, message };
}

/** The UTF-16 string after the HRESULT; null when absent, empty or cut short. */
function readErrorText(payload: Uint8Array): string | null {
  if (payload.length < 8) return null;
  const dv = new DataView(payload.buffer, payload.byteOffset, payload.length);
  const units = dv.getUint32(4, true);
  if (units === 0 || 8 + 2 * units > payload.length) return null;
  let s = '';
  for (let i = 0; i < units; i++) {
    const c = dv.getUint16(8 + 2 * i, true);
    if (c === 0) break;
    s += String.fromCharCode(c);
  }
  s = s.trim();
  return s === '' ? null : s;
}

/** "0x80004005 (E_FAIL)"-style text for an HRESULT the dump command returned. */
export function describeDumpHresult(h: number): string {
  const hex = '0x' + (h >>> 0).toString(16).padStart(8, '0');
  const named = hresultName(h);
  if (named !== hex) return `${hex} (${named})`;
  switch (h >>> 0) {
    case 0x80004005:
      return `${hex} (E_FAIL)`;
    case 0x80070057:
      return `${hex} (E_INVALIDARG)`;
    default:
      return hex;
  }
}
