import { afterAll, beforeAll } from 'vitest';
import type { SessionId } from '../../shared/ipc/contract.js';
import { FileRegistry } from '../../electron/host/file-registry.js';
import { SessionManager, type SessionManagerOptions } from '../../electron/host/session-manager.js';
import { devWorkerScripts } from '../../electron/workers/worker-scripts.js';

/**
 * A SessionManager on real worker_threads (through the tsx shim) for one test file: made in
 * beforeAll, disposed in afterAll. `open` registers a path and opens it without waiting for the
 * load; `mgr` is valid from beforeAll on.
 */
export function sessionManagerRig(opts: Omit<SessionManagerOptions, 'scripts' | 'emit'> & Partial<Pick<SessionManagerOptions, 'emit'>>): {
  readonly mgr: SessionManager;
  open(path: string): Promise<SessionId>;
} {
  const files = new FileRegistry();
  let mgr: SessionManager | null = null;
  beforeAll(() => {
    mgr = new SessionManager({ scripts: devWorkerScripts(), emit: () => undefined, ...opts });
  });
  afterAll(async () => {
    await mgr?.dispose();
  });
  const made = (): SessionManager => {
    if (!mgr) throw new Error('sessionManagerRig: the manager exists from beforeAll on');
    return mgr;
  };
  return {
    get mgr() {
      return made();
    },
    async open(path) {
      const file = await files.register(path, 'path');
      return made().open(file, path).sessionId;
    },
  };
}
