import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Backend } from '../../electron/host/backend.js';
import { generateCfHeapLogText } from '../tools/gen-cf-heaplog.js';
import { testBackend } from '../helpers/test-backend.js';

/**
 * A Compact Framework heap log with two AppDomain sections, opened through the app's back end the
 * way the UI does it: the file once (its first section, which tells how many sections there are),
 * then each further section with `select`. Every number is the generator's answer, known by
 * construction (test/tools/gen-cf-heaplog.ts).
 */
const { text, sections } = generateCfHeapLogText({ objects: 1500, seed: 21 });

describe('multi-section CF heap log in the app back end', () => {
  let dir: string;
  let backend: Backend;
  let path: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-app-cf-'));
    path = join(dir, 'bubble.log');
    writeFileSync(path, text);
    backend = testBackend(join(dir, 'config'), 2);
  });

  afterAll(async () => {
    await backend?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens as two sessions, one per AppDomain, with the generator\'s counts and sizes', async () => {
    expect(sections).toHaveLength(2);
    const file = await backend.service.registerPath({ path, via: 'typed' });
    expect(file.formatHint).toBe('cf-heaplog');

    const first = await backend.service.open({ fileToken: file.token });
    const s0 = await backend.service.summary({ sessionId: first.sessionId });
    expect(s0.metadata.extra).toMatchObject({ sectionCount: 2, sectionIndex: 0, appDomain: sections[0].name });
    // what the UI then does for every other section
    const second = await backend.service.open({ fileToken: file.token, select: '1' });
    const s1 = await backend.service.summary({ sessionId: second.sessionId });
    expect(s1.metadata.extra).toMatchObject({ sectionCount: 2, sectionIndex: 1, appDomain: sections[1].name });

    expect((await backend.service.listSessions({})).map((s) => s.sessionId).sort()).toEqual([first.sessionId, second.sessionId].sort());
    for (const [s, want] of [
      [s0, sections[0]],
      [s1, sections[1]],
    ] as const) {
      expect(s.metadata.format).toBe('cf-heaplog');
      expect(s.objects).toEqual({ count: want.objects, size: want.totalSize });
      expect(s.nodeCount).toBe(want.objects + want.pseudoNodes);
      // the types grid adds up to the same objects
      const w = await backend.service.typeRows({ sessionId: s.sessionId, sort: { key: 'count', dir: 'desc' }, start: 0, end: 10_000 });
      expect(w.rows.reduce((n, r) => n + r.count, 0)).toBe(want.objects);
    }
    // selecting by AppDomain name reads the same section as by index
    const byName = await backend.service.open({ fileToken: file.token, select: sections[1].name });
    const s1b = await backend.service.summary({ sessionId: byName.sessionId });
    expect([s1b.nodeCount, s1b.objects.size]).toEqual([s1.nodeCount, s1.objects.size]);
  });
});
