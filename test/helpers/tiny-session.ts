import type { FileEntry, FileToken, SessionId } from '../../shared/ipc/contract.js';
import { SnapshotSession } from '../../shared/session/snapshot-session.js';
import { tinyGraph, type TinyGraph } from './graph-builder.js';

/**
 * The small heap that several session tests share, opened as a SnapshotSession (session 's1',
 * file /x/tiny.gcdump, parse time 5 ms):
 *
 *   root → [static vars] → A(Holder 16) → B, C (Leaf 8 each) → D (Big 32, via both)
 *   root → [local vars] → E(Holder 24) → F(Leaf 8);   G (Garbage 100) is referenced by nothing.
 */
export function holderLeafSession(): { t: TinyGraph; s: SnapshotSession } {
  const t = tinyGraph((b) => {
    b.root('[static vars]').ref('A');
    b.root('[local vars]').ref('E');
    b.node('A', 16, 'Holder').ref('B', 'C');
    b.node('B', 8, 'Leaf').ref('D');
    b.node('C', 8, 'Leaf').ref('D');
    b.node('D', 32, 'Big');
    b.node('E', 24, 'Holder').ref('F');
    b.node('F', 8, 'Leaf');
    b.node('G', 100, 'Garbage');
  });
  const file: FileEntry = { token: 'tok' as FileToken, name: 'tiny.gcdump', displayPath: '/x/tiny.gcdump', size: 1, modifiedMs: 0, source: 'path', formatHint: 'gcdump', exists: true };
  return { t, s: new SnapshotSession(t.graph, { sessionId: 's1' as SessionId, file, parseMs: 5 }) };
}
