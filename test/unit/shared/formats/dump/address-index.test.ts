import { describe, expect, it } from 'vitest';
import { addressIndex } from '../../../../../shared/formats/dump/address-index.js';

/** lo, hi words of ascending 64-bit addresses. */
function words(addresses: bigint[]): Uint32Array {
  const w = new Uint32Array(2 * addresses.length);
  addresses.forEach((a, i) => {
    w[2 * i] = Number(a & 0xffffffffn);
    w[2 * i + 1] = Number(a >> 32n);
  });
  return w;
}
const split = (a: bigint): [number, number] => [Number(a & 0xffffffffn), Number(a >> 32n)];

describe('addressIndex (dump reference resolution)', () => {
  it('finds objects by address near the referencing node and far from it; non-object addresses are -1', () => {
    const addrs = [0x7f0000001000n, 0x7f0000001018n, 0x7f0000001030n, 0x7f0100000000n, 0x7f0100000020n, 0x7f01ffffffe8n, 0x7f0200000000n];
    const find = addressIndex(words(addrs), addrs.length);
    for (let from = -1; from < addrs.length; from++) {
      addrs.forEach((a, i) => expect(find(...split(a), from)).toBe(i));
      expect(find(...split(0x7f0000001008n), from)).toBe(-1); // inside object 0
      expect(find(...split(0x10n), from)).toBe(-1); // below all
      expect(find(...split(0x7f0300000000n), from)).toBe(-1); // above all
      expect(find(...split(0x7f0100000008n + 0xffffffffn), from)).toBe(-1); // same lo word as no object, other hi
    }
    expect(addressIndex(new Uint32Array(0), 0)(0, 0, -1)).toBe(-1);
  });

  it('randomized: equals a naive lookup for neighbours, far targets and misses (several sizes, segments 4 GB apart)', () => {
    let seed = 12345;
    const rnd = (k: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % k);
    for (const n of [1, 2, 3, 9, 17, 100, 5000]) {
      const addrs: bigint[] = [];
      let a = 0x7ff000000000n;
      for (let i = 0; i < n; i++) {
        a += rnd(10) === 0 ? 0x100000000n + BigInt(rnd(1 << 20)) : BigInt(24 + 8 * rnd(8));
        addrs.push(a);
      }
      const naive = new Map(addrs.map((x, i) => [x, i]));
      const find = addressIndex(words(addrs), n);
      for (let k = 0; k < 4000; k++) {
        const from = rnd(n + 1) - 1;
        const base = rnd(3) === 0 || from < 0 ? addrs[rnd(n)] : addrs[Math.min(n - 1, Math.max(0, from + rnd(21) - 10))];
        const probe = rnd(4) === 0 ? base + BigInt(rnd(3) * 8) - 8n : base;
        expect(find(...split(probe), from)).toBe(naive.get(probe) ?? -1);
      }
    }
  });
});
