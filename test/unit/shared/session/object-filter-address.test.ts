import { describe, expect, it } from 'vitest';
import type { FileEntry, FileToken, SessionId } from '../../../../shared/ipc/contract.js';
import { SnapshotSession } from '../../../../shared/session/snapshot-session.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';

// Addresses in tinyGraph are 0x1000 + ordinal × 0x10: B (ordinal 3) 0x1030, C 0x1040, D 0x1050,
// E 0x1060; all four are 'Leaf', so a prefix such as 0x10 is a substring of every address.
const file: FileEntry = { token: 't' as FileToken, name: 'a.gcdump', displayPath: 'a', size: 0, modifiedMs: 0, source: 'path', formatHint: null, exists: true };

function session() {
  const t = tinyGraph((b) => {
    b.root('[static vars]').ref('A');
    b.node('A', 16, 'Holder').ref('B', 'C', 'D', 'E');
    b.node('B', 8, 'Leaf');
    b.node('C', 8, 'Leaf');
    b.node('D', 8, 'Leaf');
    b.node('E', 8, 'Leaf');
  });
  const s = new SnapshotSession(t.graph, { sessionId: 's' as SessionId, file, parseMs: 0 });
  const leaf = t.graph.nodeType[t.id('B')];
  const rows = (filter: string) => s.objectRows({ typeIndex: leaf, sort: { key: 'address', dir: 'asc' }, filter, start: 0, end: 100 }).rows.map((r) => t.name(r.node));
  return { t, rows };
}

describe('instances filter: an 0x… address is exact, bare hex a substring', () => {
  it('0x… matches one address exactly, never a prefix or an inner substring', () => {
    const { t, rows } = session();
    expect(t.id('B')).toBe(3);
    expect(rows('0x1030')).toEqual(['B']);
    expect(rows('0X1040')).toEqual(['C']);
    expect(rows('  0x00001050 ')).toEqual(['D']); // leading zeros: the same address
    expect(rows('0x10')).toEqual([]); // a prefix of all four, the address of none
    expect(rows('0x103')).toEqual([]);
    expect(rows('0x030')).toEqual([]); // inner substring of 0x1030 but a different number
  });

  it('bare hex still filters by substring', () => {
    const { rows } = session();
    expect(rows('10')).toEqual(['B', 'C', 'D', 'E']);
    expect(rows('060')).toEqual(['E']);
    expect(rows('zz')).toEqual([]);
    expect(rows('=1030')).toEqual([]); // not an address: a substring no address contains
  });

  it('an 0x… longer than 64 bits is one coded error', () => {
    const { rows } = session();
    expect(() => rows('0x1' + '0'.repeat(16))).toThrow(expect.objectContaining({ code: 'usage/bad-argument', message: expect.stringMatching(/more than 64 bits/) }));
  });
});
