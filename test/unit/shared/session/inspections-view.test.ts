import { describe, expect, it } from 'vitest';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import type { FileEntry, FileToken, SessionId } from '../../../../shared/ipc/contract.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

// Issue 16: the Insights view's session query (inspections-view.ts) gives the engine's findings.
const FILE: FileEntry = { token: 'tok' as FileToken, name: 'g.gcdump', displayPath: '/x/g.gcdump', size: 1, modifiedMs: 0, source: 'path', formatHint: 'gcdump', exists: true };

const graph = () =>
  tinyGraph((b) => {
    b.root('[static var App.Bus]').ref('Bus');
    b.root('[static var App.Cache]').ref('Cache');
    b.node('Bus', 24, 'Pub.Bus').ref('E');
    b.node('E', 64, 'System.EventHandler').ref('IL');
    b.node('IL', 40, 'System.Object[]').ref('h1', 'h2');
    b.node('h1', 64, 'System.EventHandler').ref('P1');
    b.node('h2', 64, 'System.EventHandler').ref('P2');
    b.node('P1', 100, 'Page');
    b.node('P2', 100, 'Page');
    b.node('Cache', 32, 'Cache');
  });

describe('the inspections session query', () => {
  it('waits for the analysis, then lists the findings with exact bytes, top N per inspection', () => {
    expect(SnapshotSession.needsAnalysis('inspections', {})).toBe(true);
    const t = graph();
    const s = new SnapshotSession(t.graph, { sessionId: 's1' as SessionId, file: FILE, parseMs: 1 });
    expect(() => s.inspections({})).toThrow();
    s.runAnalysis();
    const r = s.inspections({});
    expect(r.findings.map((f) => [f.kind, f.objects, f.bytes, f.details.field ?? f.details.subscriberType ?? null])).toEqual([
      ['event-handler-leak', 2, 200, 'Page'],
      // Bus: 24 + 64 + 40 + 2 × 64 + 2 × 100 = 456
      ['static-field', 7, 456, 'App.Bus'],
      ['static-field', 1, 32, 'App.Cache'],
    ]);
    expect(r.findings[0].examples.map((e) => e.node)).toEqual([t.id('P1'), t.id('P2')]);
    expect(r.unavailable).toHaveLength(3);
    expect(s.inspections({})).toBe(r); // cached
    expect(s.inspections({ top: 1 }).findings.map((f) => f.kind)).toEqual(['event-handler-leak', 'static-field']);
  });
});
