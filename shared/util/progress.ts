/**
 * Progress reporting for long phases (parse, retainers, dominators, ...).
 *
 * Producers call the sink as often as they like; `throttledProgress` forwards at most one call
 * per `intervalMs` per phase (plus the first and last), so a 10M-iteration loop does not flood
 * IPC. `total` is 0 when unknown.
 */
export type ProgressSink = (phase: string, done: number, total: number) => void;

export const NO_PROGRESS: ProgressSink = () => {};

export function throttledProgress(
  sink: ProgressSink,
  intervalMs = 100,
  now: () => number = () => Date.now(),
): ProgressSink {
  let lastPhase = '';
  let lastTime = -Infinity;
  return (phase, done, total) => {
    const t = now();
    const boundary = phase !== lastPhase || done === 0 || (total > 0 && done >= total);
    if (boundary || t - lastTime >= intervalMs) {
      lastPhase = phase;
      lastTime = t;
      sink(phase, done, total);
    }
  };
}
