import { AppError } from '../../shared/errors.js';
import type { DumpQuery, DumpQueryResults } from '../../shared/formats/dump/dump-queries.js';
import type { SessionId } from '../../shared/ipc/contract.js';
import { DumpQueryClient } from '../dump-reader/dump-query-client.js';
import type { SessionManager } from './session-manager.js';

/**
 * The dump tabs' query helpers: one serve-mode dump reader (DumpQueryClient) per session whose
 * file is a process dump, started on the tab's first inspector, Threads or runtime request and
 * kept for the next ones (no DAC reload per click). It is closed when the session closes (for
 * any reason: user, worker crash) and when the back end is disposed (app exit), so no helper
 * outlives its tab. Graph queries stay in the session's worker; these answers come from the dump.
 */
export class DumpInspectors {
  private readonly clients = new Map<SessionId, DumpQueryClient>();

  constructor(
    private readonly sessions: SessionManager,
    private readonly makeClient: (path: string, name: string) => DumpQueryClient = (path, name) => new DumpQueryClient(path, name),
  ) {}

  async query<Q extends DumpQuery>(sessionId: SessionId, q: Q): Promise<DumpQueryResults[Q['query']]> {
    let client = this.clients.get(sessionId);
    if (!client) {
      await this.sessions.summary(sessionId); // a dump tab is known as one once it has loaded
      const { file, path, summary } = this.sessions.fileOf(sessionId);
      if (summary?.metadata.format !== 'dump') {
        throw new AppError('dump/not-a-dump', `${file.name} is not a process dump: object values, threads and runtime details need a full process dump`);
      }
      client = this.clients.get(sessionId); // another request may have made it meanwhile
      if (!client) {
        client = this.makeClient(path, file.name);
        this.clients.set(sessionId, client);
      }
    }
    return client.query(q);
  }

  /** Helpers running now (tests). */
  get running(): number {
    let n = 0;
    for (const c of this.clients.values()) if (c.isRunning) n++;
    return n;
  }

  async close(sessionId: SessionId): Promise<void> {
    const c = this.clients.get(sessionId);
    if (!c) return;
    this.clients.delete(sessionId);
    await c.close();
  }

  async dispose(): Promise<void> {
    const all = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(all.map((c) => c.close()));
  }
}
