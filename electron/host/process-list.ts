import type { DotnetProcessInfo } from '../../shared/ipc/contract.js';
import { listDotnetProcesses } from '../diagnostics/endpoints.js';
import { endpointFor, queryProcessInfo } from '../diagnostics/process-info.js';

/**
 * The "Capture from process…" list: every live process with a .NET diagnostics endpoint
 * (endpoints.ts), described by the runtime itself where it answers (ProcessInfo: entry assembly,
 * CLR version, command line), like `heapscope ps`.
 *
 * The runtimes are asked in parallel with a short timeout each, so one hung process costs the
 * list at most that timeout, not one per process. A process that does not answer is still listed,
 * with the reason in `note`: its endpoint exists, so a capture may still work (or give the coded
 * error that explains why not).
 */
const ASK_TIMEOUT_MS = 2_000;

export async function listProcesses(): Promise<DotnetProcessInfo[]> {
  const procs = await listDotnetProcesses();
  return Promise.all(
    procs.map(async (p): Promise<DotnetProcessInfo> => {
      try {
        const info = await queryProcessInfo(p.endpoint, ASK_TIMEOUT_MS);
        return { pid: p.pid, name: info.entrypointAssembly ?? p.name, runtimeVersion: info.clrVersion, commandLine: info.commandLine ?? p.commandLine, note: null };
      } catch (e) {
        return { pid: p.pid, name: p.name, runtimeVersion: null, commandLine: p.commandLine, note: (e as Error).message };
      }
    }),
  );
}

/**
 * What a capture or a monitor needs before it starts: the coded errors a user can act on at
 * once (process/not-found, process/not-dotnet), and a name for the tab. The name is best effort.
 */
export async function describeProcess(pid: number): Promise<{ name: string | null; runtimeVersion: string | null }> {
  const endpoint = await endpointFor(pid);
  try {
    const info = await queryProcessInfo(endpoint, ASK_TIMEOUT_MS);
    return { name: info.entrypointAssembly, runtimeVersion: info.clrVersion };
  } catch {
    return { name: null, runtimeVersion: null };
  }
}
