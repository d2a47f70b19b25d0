import { ref, shallowRef, watch, type Ref, type ShallowRef } from 'vue';
import type { SessionId } from '../../shared/ipc/contract';
import { describeError, type ErrorText } from '../api/error-messages';

/**
 * The back end's answer about a set of sessions that the user changes while it is computed (the
 * Trend views: the checked snapshots). `ask` runs at once and again whenever `sessionIds` change,
 * with the result and error cleared and `onChange` called first; fewer than two sessions ask
 * nothing. Only the newest request's answer or error is kept: a slow answer for snapshots since
 * unchecked never replaces a newer one, nor clears the newer one's `loading`.
 */
export function useSessionsAnswer<T>(
  sessionIds: () => SessionId[],
  ask: (ids: SessionId[]) => Promise<T>,
  onChange: () => void = () => {},
): { result: ShallowRef<T | null>; error: Ref<ErrorText | null>; loading: Ref<boolean> } {
  const result = shallowRef<T | null>(null);
  const error = ref<ErrorText | null>(null);
  const loading = ref(false);
  let seq = 0;
  watch(
    () => sessionIds().join(','),
    async () => {
      const ids = sessionIds();
      const my = ++seq;
      result.value = null;
      error.value = null;
      onChange();
      if (ids.length < 2) return;
      loading.value = true;
      try {
        const r = await ask(ids);
        if (my === seq) result.value = r;
      } catch (e) {
        if (my === seq) error.value = describeError(e);
      } finally {
        if (my === seq) loading.value = false;
      }
    },
    { immediate: true },
  );
  return { result, error, loading };
}
