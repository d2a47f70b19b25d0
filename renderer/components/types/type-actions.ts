import { useClient } from '../../api/heapscope-client';
import { useDocumentsStore, type DocId } from '../../stores/documents';
import { useTabsStore, type SelectedType } from '../../stores/tabs';
import { findTypeByName } from '../diff/snapshot-tabs';

/**
 * What the type menu (a right-click on a Types or Diff row) does with one type, through the tabs
 * store's navigation, the same as the Types toolbar's buttons: its instances, the paths to roots
 * of all its objects, what retains it. A diff row knows its type by name only: the name is looked
 * up in this snapshot (one typeRows request, as the diff's own drill-down does); a type the
 * snapshot does not have (removed since the baseline) is reported, not opened.
 */
export type TypeAction = 'instances' | 'paths' | 'retained-by';

async function resolve(docId: DocId, t: { type: string; typeIndex?: number }): Promise<SelectedType | null> {
  if (t.typeIndex !== undefined) return { typeIndex: t.typeIndex, type: t.type };
  const documents = useDocumentsStore();
  const d = documents.docs[docId];
  if (!d?.sessionId) return null;
  const found = await findTypeByName(useClient(), d.sessionId, t.type);
  if (!found) documents.report(`${t.type} has no instances in ${d.title}`, docId, 'info');
  return found;
}

export async function runTypeAction(docId: DocId, t: { type: string; typeIndex?: number }, action: TypeAction): Promise<void> {
  try {
    const sel = await resolve(docId, t);
    if (!sel) return;
    const tabs = useTabsStore();
    if (action === 'instances') tabs.openInstances(docId, sel);
    else {
      tabs.selectType(docId, sel);
      if (action === 'paths') tabs.showPaths(docId, 'type');
      else tabs.showView(docId, 'retained-by');
    }
  } catch (e) {
    useDocumentsStore().report(e, docId);
  }
}
