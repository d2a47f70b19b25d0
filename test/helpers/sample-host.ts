import { join } from 'node:path';
import type { FileEntry, FileToken, SessionId, SnapshotSummary } from '../../shared/ipc/contract.js';
import { SnapshotHost } from '../../electron/workers/snapshot-host.js';
import type { WorkerEvent } from '../../electron/workers/worker-protocol.js';

/** The bundled sample, as a SnapshotHost test opens it (in-process, analyses inline). */
export const SAMPLE = join(__dirname, '../../electron/resources/sample.gcdump');
export const SAMPLE_FILE: FileEntry = { token: 't' as FileToken, name: 'sample.gcdump', displayPath: SAMPLE, size: 0, modifiedMs: 0, source: 'sample', formatHint: 'gcdump', exists: true };

/**
 * A SnapshotHost with the sample loaded as session 's1' and its analysis settled. `settled()`
 * polls the summary until the analysis is neither pending nor running (a recompute's end).
 */
export async function openSampleHost(opts: { cancelFlag?: SharedArrayBuffer; schedule?: ConstructorParameters<typeof SnapshotHost>[2] } = {}) {
  const events: WorkerEvent[] = [];
  const host = new SnapshotHost((e) => void events.push(e), { analysis: null }, opts.schedule);
  const sessionId = 's1' as SessionId;
  await host.load({ sessionId, path: SAMPLE, file: SAMPLE_FILE, cancelFlag: opts.cancelFlag });
  const settled = async (): Promise<SnapshotSummary> => {
    for (let i = 0; i < 500; i++) {
      const s = await host.summary({ sessionId });
      if (s.analysis.state !== 'running' && s.analysis.state !== 'pending') return s;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('analysis never settled');
  };
  await settled();
  return { host, sessionId, events, settled };
}
