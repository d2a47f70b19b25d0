import type { DumpValue, SessionId } from '../../../shared/ipc/contract';
import { useClient } from '../../api/heapscope-client';
import { useDocumentsStore, type DocId } from '../../stores/documents';
import { useInspectorStore } from '../../stores/inspector';

/**
 * Values read from a process dump (the inspector's Fields section, the Threads view's frame
 * roots): the address a value points to, if any, and following it to that object in the
 * inspector. The graph knows every object of the dump by address (objectAtAddress), so a
 * reference opens the same inspector as a row of any grid.
 */
export function targetOf(v: DumpValue): string | null {
  return v.kind === 'reference' || v.kind === 'string' ? v.address : null;
}

/** Inspect the object at `address` of the tab's graph (the exact object, not one containing the address). */
export async function inspectAddress(docId: DocId, sessionId: SessionId, address: string): Promise<void> {
  try {
    const hit = await useClient().objectAtAddress({ sessionId, address });
    if (!hit || hit.offset !== 0) {
      useDocumentsStore().report(`${address} is not an object of this snapshot`, docId, 'info');
      return;
    }
    useInspectorStore().inspect(docId, hit.object.node);
  } catch (e) {
    useDocumentsStore().report(e, docId);
  }
}
