import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { touchPages, type TouchSpan } from '../../../../shared/analysis/page-touch.js';
import { mulberry32 } from '../../../helpers/random-graph.js';

// The helper thread's page touches ahead of the low-memory DFS (page-touch.ts). A real second
// thread runs them in helper-thread-port.test.ts; here the job's own contract.

const go = () => {
  const control = new Int32Array(new SharedArrayBuffer(64));
  control[0] = 1;
  return control;
};

function sharedWords(length: number): Uint32Array {
  return new Uint32Array(new SharedArrayBuffer(4 * length));
}

/** This process's resident memory in KiB (Linux). */
function rssKiB(): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : NaN;
}

describe('touchPages', () => {
  it('leaves every word as it was, in both directions, on views at any offset', () => {
    const rnd = mulberry32(17);
    const buffer = sharedWords(50_000);
    for (let i = 0; i < buffer.length; i++) buffer[i] = Math.floor(rnd() * 2 ** 32);
    const before = Array.from(buffer);
    const spans: TouchSpan[] = [
      { array: buffer.subarray(3, 20_000), backward: true },
      { array: buffer.subarray(20_000), backward: false },
      { array: buffer.subarray(7, 7), backward: false },
      { array: buffer.subarray(0, 1), backward: true },
    ];
    // one word per 4 KiB step from the span's start end, plus its other end
    expect(touchPages(spans, go())).toBe(Math.floor(19_996 / 1024) + 2 + Math.floor(29_999 / 1024) + 2 + 0 + 2);
    expect(Array.from(buffer)).toEqual(before);
  });

  it('touches nothing once told to stop (helper-thread-port.test.ts stops one midway)', () => {
    const control = go();
    control[0] = 0;
    expect(touchPages([{ array: sharedWords(1 << 20), backward: false }], control)).toBe(0);
  });

  it.skipIf(process.platform !== 'linux')('commits the pages it touches, one page fault each (a read would leave them uncommitted)', () => {
    const words = sharedWords(16 << 20); // 64 MiB, never written
    const before = rssKiB();
    const faults = process.resourceUsage().minorPageFault;
    touchPages([{ array: words.subarray(0, 8 << 20), backward: true }, { array: words.subarray(8 << 20), backward: false }], go());
    const grown = rssKiB() - before;
    expect(grown).toBeGreaterThan(0.9 * 64 * 1024);
    // one fault per 4 KiB page, not two (a touch that reads first maps the zero page, then replaces it)
    expect(process.resourceUsage().minorPageFault - faults).toBeLessThan(1.5 * 16384);
    expect(words[12345]).toBe(0);
  });
});
