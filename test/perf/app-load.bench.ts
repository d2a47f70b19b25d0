/**
 * The app's load path, timed end to end through the real worker pool (built bundles in
 * out/workers when present, else the TS sources through tsx): open → parse done (summary) →
 * first types window → analysis done (retained sizes) → first dominator window. A benchmark:
 *
 *   npm run build:main && npx tsx test/perf/app-load.bench.ts FILE [FILE...]
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SessionId } from '../../shared/ipc/contract.js';
import { FileRegistry } from '../../electron/host/file-registry.js';
import { SessionManager } from '../../electron/host/session-manager.js';
import { builtWorkerScripts, devWorkerScripts } from '../../electron/workers/worker-scripts.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const built = join(root, 'out', 'workers');
const scripts = existsSync(join(built, 'snapshot.worker.mjs')) ? builtWorkerScripts(built) : devWorkerScripts();
const analysed = new Map<SessionId, () => void>();
const mgr = new SessionManager({
  scripts,
  poolSize: 2,
  emit: (name, p) => {
    if (name === 'summary-updated') analysed.get((p as { sessionId: SessionId }).sessionId)?.();
  },
});
mgr.pool.ensureSpare();
await new Promise((r) => setTimeout(r, 500)); // let the spare worker start (not part of a load)
const files = new FileRegistry();
for (const path of process.argv.slice(2)) {
  const file = await files.register(path, 'path');
  const t0 = performance.now();
  const info = mgr.open(file, path);
  const done = new Promise<number>((r) => analysed.set(info.sessionId, () => r(performance.now() - t0)));
  const summary = await mgr.summary(info.sessionId);
  const parsed = performance.now() - t0;
  const w = await mgr.query('typeRows', { sessionId: info.sessionId, sort: { key: 'shallowSize', dir: 'desc' }, start: 0, end: 100 });
  const firstRows = performance.now() - t0;
  const analysisDone = await done;
  const d = await mgr.query('dominatorChildren', { sessionId: info.sessionId, node: null, start: 0, end: 100 });
  const firstDom = performance.now() - t0;
  const s2 = await mgr.summary(info.sessionId);
  process.stdout.write(
    JSON.stringify({
      file: file.name,
      bytes: file.size,
      nodes: summary.nodeCount,
      types: w.total,
      workers: scripts.snapshot.tsEntry ? 'tsx sources' : 'built',
      parseInWorkerMs: summary.parseMs,
      openToSummaryMs: Math.round(parsed),
      openToFirstTypeRowsMs: Math.round(firstRows),
      analysisInWorkerMs: s2.analysis.ms,
      openToAnalysisDoneMs: Math.round(analysisDone),
      openToFirstDominatorRowsMs: Math.round(firstDom),
      domRows: d.rows.length,
    }) + '\n',
  );
  await mgr.close(info.sessionId);
}
await mgr.dispose();
