import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, HeapscopeEvents } from '../../../../shared/ipc/contract.js';
import { FileRegistry } from '../../../../electron/host/file-registry.js';
import { SessionManager } from '../../../../electron/host/session-manager.js';
import { devWorkerScripts } from '../../../../electron/workers/worker-scripts.js';

// Issue 16 through real worker_threads: Restore sent right behind the what-if views' queries
// (the Insights count, paths to roots, the sunburst) is answered, and those queries fail with
// `cancelled` instead of being computed first for numbers no view shows any more. Not timed.
const SAMPLE = join(__dirname, '../../../../electron/resources/sample.gcdump');
const events: { name: EventName; payload: unknown }[] = [];
let mgr: SessionManager;
const files = new FileRegistry();

function waitFor<E extends EventName>(name: E, pred: (p: HeapscopeEvents[E]) => boolean, ms = 60_000): Promise<HeapscopeEvents[E]> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const tick = () => {
      const hit = events.find((e) => e.name === name && pred(e.payload as HeapscopeEvents[E]));
      if (hit) return resolve(hit.payload as HeapscopeEvents[E]);
      if (Date.now() - t0 > ms) return reject(new Error(`timed out waiting for ${name}`));
      setTimeout(tick, 10);
    };
    tick();
  });
}

beforeAll(() => {
  mgr = new SessionManager({ scripts: devWorkerScripts(), poolSize: 1, emit: (name, payload) => void events.push({ name, payload }) });
});

afterAll(async () => {
  await mgr?.dispose();
});

describe('Restore in the session worker', () => {
  it("cancels the what-if's queued queries instead of answering after them", async () => {
    const file = await files.register(SAMPLE, 'path');
    const sessionId = mgr.open(file, SAMPLE).sessionId;
    await mgr.summary(sessionId);
    const before = (await waitFor('summary-updated', (p) => p.sessionId === sessionId && p.summary.analysis.state === 'done')).summary;
    const feed = (await mgr.query('typeRows', { sessionId, sort: { key: 'type', dir: 'asc' }, filter: 'SampleShop.PriceFeed', start: 0, end: 1 })).rows[0];
    events.length = 0;
    await mgr.setIgnored({ sessionId, rules: [{ kind: 'type', typeIndex: feed.typeIndex }] });
    await waitFor('summary-updated', (p) => p.sessionId === sessionId && p.summary.analysis.state === 'done');

    const order: string[] = [];
    const track = <T>(name: string, p: Promise<T>) =>
      p.then(
        () => void order.push(name),
        (e: { code?: string }) => void order.push(`${name}:${e.code}`),
      );
    const queries = [
      track('inspections', mgr.query('inspections', { sessionId })),
      track('pathsToRoots', mgr.query('pathsToRoots', { sessionId, target: { kind: 'type', typeIndex: feed.typeIndex } })),
      track('sunburst', mgr.query('dominatorSunburst', { sessionId, node: null, mode: 'type', supersedeKey: 'sunburst:d1' })),
    ];
    const restored = await mgr.setIgnored({ sessionId, rules: [] });
    order.push('restore');
    await Promise.all(queries);
    expect(restored).toEqual(before);
    // none of them was computed (each one stopped at its start, before or after the Restore's
    // answer depending on when main's Restore flag was raised)
    expect([...order].sort()).toEqual(['inspections:cancelled', 'pathsToRoots:cancelled', 'restore', 'sunburst:cancelled']);
    // the restored tab answers its views again
    expect((await mgr.query('inspections', { sessionId })).findings.length).toBeGreaterThan(0);
  });
});
