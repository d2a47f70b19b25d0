import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Peer tools used as oracles (dotnet-gcdump, dotnet-trace, dotnet-dump), installed from NuGet by
 * test/tools/install-peer-tools.sh into test/.peer-tools/ (`.ci/run` calls it). A test that needs
 * one skips with `peerMissing(name)` as its visible reason when it is absent.
 */
const here = dirname(fileURLToPath(import.meta.url));
export const PEER_TOOLS_DIR = resolve(here, '..', '.peer-tools');

export type PeerTool = 'dotnet-gcdump' | 'dotnet-trace' | 'dotnet-dump';

/** Path of the installed tool, or null. */
export function peerTool(name: PeerTool): string | null {
  const p = join(PEER_TOOLS_DIR, process.platform === 'win32' ? `${name}.exe` : name);
  return existsSync(p) ? p : null;
}

export function peerMissing(name: PeerTool): string {
  return `${name} is not installed (run test/tools/install-peer-tools.sh): peer comparison skipped`;
}
