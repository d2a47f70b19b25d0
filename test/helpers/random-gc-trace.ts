import { GcScript } from './gc-event-script.js';

/**
 * A random workstation-GC trace built from episodes whose owner is known by construction: the
 * naive oracle is the generator's own bookkeeping (suspension → owner), not the collector's rules.
 */
export function randomGcTrace(rnd: () => number): { script: GcScript; want: Map<number, number>; other: number; suspended: number; count: number; shared: number } {
  const s = new GcScript();
  const want = new Map<number, number>(); // GC number → Σ of its suspensions (in 0.05 ms units)
  let other = 0;
  let suspended = 0;
  let count = 0;
  let shared = 0;
  let t = 0;
  let n = 1;
  const step = (k = 1 + Math.floor(rnd() * 40)) => (t += k);
  const ms = (u: number) => u * 0.05;
  const user = () => 1 + Math.floor(rnd() * 3);
  /** One suspension on `thread` around `body`; `owner` gets it (null: "other"). */
  const suspension = (thread: number, reason: number, owner: number | null, body: () => void) => {
    const from = step();
    s.suspend(ms(from), thread, reason);
    body();
    const to = step();
    s.restart(ms(to), thread);
    count++;
    suspended += to - from;
    if (owner === null) other += to - from;
    else want.set(owner, (want.get(owner) ?? 0) + to - from);
  };
  const gc = (thread: number, num: number, gen: number, type: number) => {
    s.start(ms(step()), thread, num, gen, type);
    if (type !== 1) s.end(ms(step()), thread, num, gen, [num, 0, 0, 0, 0]);
  };
  const episodes = 1 + Math.floor(rnd() * 25);
  for (let e = 0; e < episodes; e++) {
    const kind = rnd();
    if (kind < 0.35) {
      const num = n++;
      suspension(user(), 1, num, () => gc(0 + user(), num, Math.floor(rnd() * 3), 0));
    } else if (kind < 0.45) {
      suspension(9, 0, null, () => {}); // debugger, rejit…
    } else if (kind < 0.5) {
      suspension(user(), 1, null, () => {}); // a GC suspension that ran no GC
    } else {
      // a background GC on thread 8, maybe with an ephemeral GC in its first suspension
      const bgc = n++;
      const shape = rnd();
      const eph = shape < 0.7 ? n++ : -1;
      if (eph > 0) shared++;
      suspension(user(), 1, eph > 0 ? eph : bgc, () => {
        if (shape < 0.4) {
          gc(1, bgc, 2, 1);
          gc(1, eph, 1, 0);
        } else if (shape < 0.7) {
          gc(1, eph, 0, 0);
          gc(1, bgc, 2, 1);
        } else gc(1, bgc, 2, 1);
      });
      const inside = Math.floor(rnd() * 5);
      for (let k = 0; k < inside; k++) {
        const what = rnd();
        if (what < 0.6) {
          const fg = n++;
          suspension(user(), 1, fg, () => gc(1, fg, Math.floor(rnd() * 2), 2));
        } else if (what < 0.8) suspension(9, 0, null, () => {});
        else suspension(user(), 1, bgc, () => {});
      }
      const finals = 1 + Math.floor(rnd() * 2);
      for (let k = 0; k < finals; k++) suspension(8, 6, bgc, () => {});
      const end = () => s.end(ms(step()), 8, bgc, 2, [bgc, 0, 0, 0, 0]);
      // sometimes a GC suspension begins before the BGC's end and restarts after it: still the BGC's
      if (rnd() < 0.3) suspension(user(), 1, bgc, end);
      else end();
    }
  }
  return { script: s, want, other, suspended, count, shared };
}
