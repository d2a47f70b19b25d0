import { DumpStreamWriter } from './dump-stream-writer.js';
import { mulberry32 } from './prng.js';

/**
 * A random "HSDUMP01" stream for decoder/graph comparisons: `n` objects at ascending addresses
 * (some gaps above 2^32), references to earlier, later and the same objects with names, ~10%
 * dangling (an address inside an object), a few roots and dependent handles, string values on
 * every 7th object. Same seed, same bytes.
 */
export function randomDumpStream(seed: number, n: number): Uint8Array {
  const rnd = mulberry32(seed);
  const addrs: bigint[] = [];
  let a = 0x7f00_0000_0000n + BigInt(Math.floor(rnd() * 1000)) * 8n;
  for (let i = 0; i < n; i++) {
    addrs.push(a);
    a += BigInt(24 + Math.floor(rnd() * 4) * 8) + (rnd() < 0.01 ? 0x1_0000_0000n : 0n);
  }
  const fields = ['a', 'b', 'c', null];
  const w = new DumpStreamWriter();
  w.info('pointerSize', '8');
  for (let t = 0; t < 5; t++) w.type(t, `T${t}`, t === 4 ? null : 'm.dll');
  let values = 0;
  for (let i = 0; i < n; i++) {
    const refs: [bigint, string | null][] = [];
    const k = Math.floor(rnd() * 5);
    for (let j = 0; j < k; j++) {
      // Mostly near the source (as on a real heap), some anywhere, a few dangling.
      const near = rnd() < 0.7;
      const to = near ? Math.min(n - 1, Math.max(0, i + Math.floor(rnd() * 40) - 20)) : Math.floor(rnd() * n);
      refs.push([rnd() < 0.1 ? addrs[to] + 4n : addrs[to], fields[Math.floor(rnd() * fields.length)]]);
    }
    w.object(addrs[i], i % 5, 24 + (i % 7) * 8, i % 3, refs);
    if (i % 7 === 3) {
      const v = Math.floor(rnd() * (values + 1));
      // Every third value is cut off (full length above its text's).
      const length = 1 + String(v).length + (v % 3 === 0 ? 5 : 0);
      if (v === values) w.stringValue(addrs[i], values++, `s${v}`, length);
      else w.stringValue(addrs[i], v, null, length);
    }
  }
  for (let r = 0; r < 1 + Math.floor(rnd() * 10); r++) w.root(Math.floor(rnd() * 11), 'g', 'x', addrs[Math.floor(rnd() * n)]);
  for (let d = 0; d < Math.floor(rnd() * 4); d++) w.dependent(addrs[Math.floor(rnd() * n)], addrs[Math.floor(rnd() * n)]);
  return w.end().finish();
}

