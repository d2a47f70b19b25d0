import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { InfoJson } from '../../electron/cli/commands/info.js';
import { runCli } from '../../electron/cli/main.js';
import { addressColliding, cfColliding32, cfLogWithIds, orderPreservingOrdinary, traceWithAddresses, widenIds } from '../helpers/adversarial-ids.js';
import { captureIo } from '../helpers/capture-io.js';

/**
 * Hash flooding (issue 13) through the CLI, as a user meets it: a CF log and a heap-walk trace
 * whose ids / addresses collide in the id tables' old fixed hashes (test/helpers/adversarial-ids.ts)
 * open with `info` like the same heaps with ordinary ids do. The CF log is big enough for the
 * CLI's two-core read (a child worker reads its second half). Before the tables were keyed each
 * took minutes; the timeout only catches such a blow-up, the checks are the numbers.
 */
const dir = mkdtempSync(join(tmpdir(), 'heapscope-flood-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const n = 200_000;

async function info(path: string): Promise<InfoJson> {
  const c = captureIo();
  const code = await runCli(['info', path, '--format', 'json'], c.io);
  expect([code, c.err]).toEqual([0, '']);
  return JSON.parse(c.out) as InfoJson;
}

/** The numbers of two readings of one heap that must agree (not the file's name or size). */
const counts = (i: InfoJson) => [i.format, i.nodeCount, i.edgeCount, i.objectCount, i.totalSize, i.typeCount, i.pseudoNodeCount, i.undefinedNodeCount, i.rootsByCategory];

describe('heapscope info on crafted ids', () => {
  it(
    'CF heap log: crafted 32-bit ids read like ordinary ones',
    async () => {
      const crafted = widenIds(cfColliding32(n));
      const ordinary = new Uint32Array(2 * n);
      for (let i = 0; i < n; i++) ordinary[2 * i] = 0x100000 + 16 * i;
      writeFileSync(join(dir, 'crafted.log'), cfLogWithIds(crafted, { seed: 9 }));
      writeFileSync(join(dir, 'ordinary.log'), cfLogWithIds(ordinary, { seed: 9 }));
      const a = await info(join(dir, 'crafted.log'));
      const b = await info(join(dir, 'ordinary.log'));
      expect(a.objectCount).toBe(n);
      expect(counts(a)).toEqual(counts(b));
    },
    60_000,
  );

  it(
    'nettrace: crafted BulkNode addresses read like ordinary ones',
    async () => {
      const crafted = addressColliding(n);
      writeFileSync(join(dir, 'crafted.nettrace'), traceWithAddresses(crafted, { seed: 9 }));
      writeFileSync(join(dir, 'ordinary.nettrace'), traceWithAddresses(orderPreservingOrdinary(crafted), { seed: 9 }));
      const a = await info(join(dir, 'crafted.nettrace'));
      const b = await info(join(dir, 'ordinary.nettrace'));
      expect(a.objectCount).toBe(n);
      expect(counts(a)).toEqual(counts(b));
    },
    60_000,
  );
});
