import type { IgnoreRuleDto } from '../../shared/ipc/contract';
import { useClient } from '../api/heapscope-client';
import { useDocumentsStore, type DocId } from '../stores/documents';

/**
 * "What if" actions of a tab (issue 16): add a rule to its ignore list, remove one, restore. The
 * list lives in the back end (the tab's summary reports it as `ignored`), so the menus and the
 * banner only send the new list; every grid then refreshes from the recomputed analysis.
 */
function rulesOf(docId: DocId): IgnoreRuleDto[] {
  return useDocumentsStore().docs[docId]?.summary?.ignored?.items.map((x) => x.rule) ?? [];
}

const same = (a: IgnoreRuleDto, b: IgnoreRuleDto) => JSON.stringify(a) === JSON.stringify(b);

export function ignore(docId: DocId, rule: IgnoreRuleDto): Promise<void> {
  const rules = rulesOf(docId);
  if (rules.some((r) => same(r, rule))) return Promise.resolve();
  return useDocumentsStore().setIgnored(docId, [...rules, rule]);
}

/** Ignore every reference out of instances of the object's type (its type index is asked for when unknown). */
export async function ignoreTypeOfObject(docId: DocId, node: number, typeIndex?: number): Promise<void> {
  const documents = useDocumentsStore();
  try {
    let t = typeIndex;
    if (t === undefined) {
      const sessionId = documents.docs[docId]?.sessionId;
      if (!sessionId) return;
      t = (await useClient().objectInfo({ sessionId, node })).typeIndex;
    }
    await ignore(docId, { kind: 'type', typeIndex: t });
  } catch (e) {
    documents.report(e, docId);
  }
}

export function unignore(docId: DocId, index: number): Promise<void> {
  const rules = rulesOf(docId);
  return useDocumentsStore().setIgnored(docId, rules.filter((_, i) => i !== index));
}

export function restoreAll(docId: DocId): Promise<void> {
  return useDocumentsStore().setIgnored(docId, []);
}
