import { AppError } from '../../shared/errors.js';
import { decodeProcessInfo, HResult, processInfo, ProcessCommand, type ProcessInfoDto } from '../../shared/diagnostics/ipc-messages.js';
import { findEndpoint, processExists } from './endpoints.js';
import { sendCommand } from './ipc-connection.js';

/**
 * Resolve a pid to its diagnostics endpoint with the coded errors users need:
 * no such process / not a .NET process.
 */
export async function endpointFor(pid: number): Promise<string> {
  if (!Number.isInteger(pid) || pid <= 0) throw new AppError('usage/bad-argument', `not a process id: ${pid}`);
  if (!processExists(pid)) throw new AppError('process/not-found', `no process with id ${pid}`);
  const endpoint = await findEndpoint(pid);
  if (!endpoint) {
    throw new AppError('process/not-dotnet', `process ${pid} has no .NET diagnostics endpoint (not a .NET process, or DOTNET_EnableDiagnostics=0)`);
  }
  return endpoint;
}

/** ProcessInfo3 → 2 → 1, moving on when the runtime answers "unknown command" (spec §6). */
export async function queryProcessInfo(endpoint: string, timeoutMs = 5_000): Promise<ProcessInfoDto> {
  for (const cmd of [ProcessCommand.ProcessInfo3, ProcessCommand.ProcessInfo2, ProcessCommand.ProcessInfo]) {
    const r = await sendCommand(endpoint, processInfo(cmd), timeoutMs);
    if (r.ok) return decodeProcessInfo(r.payload, cmd);
    if (r.hresult !== HResult.UnknownCommand) break;
  }
  throw new AppError('process/protocol', `the runtime at ${endpoint} refused every ProcessInfo command`);
}
