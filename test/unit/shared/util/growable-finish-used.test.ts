import { describe, expect, it } from 'vitest';
import { GrowableUint32Array } from '../../../../shared/util/growable-array.js';

function filled(capacity: number, length: number, shared = false): GrowableUint32Array {
  const g = new GrowableUint32Array(capacity, shared);
  for (let i = 0; i < length; i++) g.push(i * 3);
  return g;
}

describe('Growable.finishUsed', () => {
  it('hands out a view of the storage when the unused tail is at most an eighth of the used part', () => {
    const g = filled(72, 64); // tail 8 = 64 / 8
    const out = g.finishUsed();
    expect(out.buffer).toBe(g.raw.buffer);
    expect(out.length).toBe(64);
    expect(Array.from(out.subarray(60))).toEqual([180, 183, 186, 189]);
  });

  it('trims with a copy when the tail is larger, as finish() does', () => {
    const g = filled(73, 64); // tail 9 > 64 / 8
    const out = g.finishUsed();
    expect(out.buffer).not.toBe(g.raw.buffer);
    expect(out.buffer.byteLength).toBe(64 * 4);
    expect(out[63]).toBe(189);
  });

  it('shared storage stays a view whatever its tail', () => {
    const g = filled(1000, 64, true);
    const out = g.finishUsed();
    expect(out.buffer).toBe(g.raw.buffer);
    expect(out.buffer instanceof SharedArrayBuffer).toBe(true);
    expect(out.length).toBe(64);
  });
});
