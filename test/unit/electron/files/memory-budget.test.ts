import { totalmem } from 'node:os';
import { describe, expect, it } from 'vitest';
import { memoryBudget, parseMemoryLimit } from '../../../../electron/files/memory-budget.js';

describe('HEAPSCOPE_MEMORY_LIMIT', () => {
  it('reads bytes and binary K/M/G/T suffixes; anything else is no limit', () => {
    expect(parseMemoryLimit('1000')).toBe(1000);
    expect(parseMemoryLimit('512M')).toBe(512 * 2 ** 20);
    expect(parseMemoryLimit('1.5g')).toBe(1.5 * 2 ** 30);
    expect(parseMemoryLimit('2GiB')).toBe(2 * 2 ** 30);
    expect(parseMemoryLimit('1T')).toBe(2 ** 40);
    expect(parseMemoryLimit(undefined)).toBeNull();
    expect(parseMemoryLimit('')).toBeNull();
    expect(parseMemoryLimit('lots')).toBeNull();
    expect(parseMemoryLimit('-5G')).toBeNull();
  });

  it('replaces the system value when set, and names where the number came from', () => {
    expect(memoryBudget({ HEAPSCOPE_MEMORY_LIMIT: '4G' })).toEqual({ availableBytes: 4 * 2 ** 30, source: 'HEAPSCOPE_MEMORY_LIMIT=4G', path: 'cli' });
    expect(memoryBudget({ HEAPSCOPE_MEMORY_LIMIT: '4G' }, 'app').path).toBe('app');
    const b = memoryBudget({});
    expect(b.source).toBe('available system memory');
    // MemAvailable (or a cgroup's remaining limit) moves between reads: only its range is fixed.
    expect(b.availableBytes).toBeGreaterThan(0);
    expect(b.availableBytes).toBeLessThanOrEqual(totalmem());
  });
});
