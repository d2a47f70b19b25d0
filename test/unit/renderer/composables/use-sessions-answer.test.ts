import { describe, expect, it } from 'vitest';
import { effectScope, nextTick, ref } from 'vue';
import { AppError } from '../../../../shared/errors';
import type { SessionId } from '../../../../shared/ipc/contract';
import { useSessionsAnswer } from '../../../../renderer/composables/use-sessions-answer';
import { deferred } from '../fake-client';

// The Trend views' request: asked again when the checked snapshots change, and only the newest
// request's answer counts (a slow answer for an earlier set must not replace it).
const ids = (...s: string[]) => s as SessionId[];
const settle = async () => {
  for (let i = 0; i < 3; i++) await nextTick();
};

function rig() {
  const chosen = ref<SessionId[]>(ids('a', 'b'));
  const asked: { ids: SessionId[]; answer: ReturnType<typeof deferred<string>> }[] = [];
  let changes = 0;
  const scope = effectScope();
  const answer = scope.run(() =>
    useSessionsAnswer(
      () => chosen.value,
      (sessionIds) => {
        const d = deferred<string>();
        asked.push({ ids: sessionIds, answer: d });
        return d.promise;
      },
      () => changes++,
    ),
  )!;
  return { chosen, asked, answer, changes: () => changes, stop: () => scope.stop() };
}

describe('useSessionsAnswer', () => {
  it('keeps the newest request’s answer when an earlier one arrives later', async () => {
    const r = rig();
    expect(r.asked.map((a) => a.ids)).toEqual([ids('a', 'b')]);
    expect(r.answer.loading.value).toBe(true);
    r.chosen.value = ids('a', 'b', 'c');
    await settle();
    expect(r.asked.map((a) => a.ids)).toEqual([ids('a', 'b'), ids('a', 'b', 'c')]);
    expect(r.changes()).toBe(2);
    r.asked[1].answer.resolve('three');
    await settle();
    expect(r.answer.result.value).toBe('three');
    expect(r.answer.loading.value).toBe(false);
    r.asked[0].answer.resolve('two, late');
    await settle();
    expect(r.answer.result.value).toBe('three');
    r.stop();
  });

  it('a late failure of an earlier request neither shows an error nor ends the newer one’s loading', async () => {
    const r = rig();
    r.chosen.value = ids('b', 'c');
    await settle();
    r.asked[0].answer.reject(new AppError('usage/bad-argument', 'old'));
    await settle();
    expect(r.answer.error.value).toBe(null);
    expect(r.answer.loading.value).toBe(true);
    r.asked[1].answer.reject(new AppError('usage/bad-argument', 'b.gcdump has no heap objects'));
    await settle();
    expect(r.answer.error.value?.title).toBe('The request was not accepted');
    expect(r.answer.loading.value).toBe(false);
    r.stop();
  });

  it('asks nothing for fewer than two sessions, and clears the previous answer', async () => {
    const r = rig();
    r.asked[0].answer.resolve('two');
    await settle();
    expect(r.answer.result.value).toBe('two');
    r.chosen.value = ids('a');
    await settle();
    expect(r.asked).toHaveLength(1);
    expect(r.answer.result.value).toBe(null);
    expect(r.answer.loading.value).toBe(false);
    r.stop();
  });
});
