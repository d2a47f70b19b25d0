import type { SessionId } from '../../../shared/ipc/contract';
import type { HeapscopeClient } from '../../api/heapscope-client';
import type { DocId, DocumentState } from '../../stores/documents';
import type { SelectedType } from '../../stores/tabs';

/**
 * What the Diff and Trend views share: which open tabs can be compared, and how a type NAME from
 * a diff or trend row becomes a type of one tab (type indexes are per session).
 */

/**
 * Tabs, in tab-strip order, whose snapshot has parsed and holds heap objects. A GC-only trace, an
 * empty snapshot, a failed load or a monitor has no types to compare: offering one as a baseline
 * would only show every type as removed.
 */
export function snapshotTabs(order: readonly DocId[], docs: Readonly<Record<DocId, DocumentState>>): DocumentState[] {
  const out: DocumentState[] = [];
  for (const id of order) {
    const d = docs[id];
    if (d?.summary && d.sessionId && d.phase !== 'failed' && d.phase !== 'cancelled' && d.summary.objects.count > 0) out.push(d);
  }
  return out;
}

/** Rows fetched per request while looking a name up (the contract allows 10,000). */
const PAGE = 2000;
/** The contract's longest filter; every row whose name contains the name contains its prefix. */
const MAX_FILTER = 200;

/**
 * The type named exactly `name` in a session, or null when it has no instances there. Asks for
 * the types whose name contains `name` (the grid's own filter), most instances first, and takes
 * the first exact match: when several type indexes share the name (the same class from two
 * modules), the diff row summed them and this opens the one with the most instances. Costs one
 * request per 2,000 matching rows (a short name such as "Node" can match many).
 */
export async function findTypeByName(client: Pick<HeapscopeClient, 'typeRows'>, sessionId: SessionId, name: string): Promise<SelectedType | null> {
  const filter = name.slice(0, MAX_FILTER);
  for (let start = 0; ; start += PAGE) {
    const w = await client.typeRows({ sessionId, sort: { key: 'count', dir: 'desc' }, filter, start, end: start + PAGE });
    const hit = w.rows.find((r) => r.type === name);
    if (hit) return { typeIndex: hit.typeIndex, type: hit.type };
    if (w.end >= w.total || w.rows.length === 0) return null;
  }
}
