import { freemem } from 'node:os';
import type { MemoryBudget, MemoryPath } from '../../shared/graph/memory-estimate.js';

/**
 * The memory a snapshot may use in this process (ReadOptions.memoryBudget), asked at the moment a
 * reader knows the graph's size.
 *
 * Which limit applies: a graph is typed arrays, whose ArrayBuffers live outside the V8 heap, so
 * `v8.getHeapStatistics().heap_size_limit` (and a worker's `resourceLimits`, which cap only the
 * V8 heap) do not bound them; the process can grow until the machine (or its cgroup) has no
 * memory left. So the budget is the memory available now: `process.availableMemory()` (Node ≥
 * 20.13: MemAvailable, i.e. free memory plus reclaimable cache, capped by a cgroup limit) or
 * `os.freemem()`. Memory other open tabs hold is already not available, so it is accounted for.
 *
 * `path`: whose peak the reader estimates (memory-estimate.ts): the app's snapshot worker passes
 * 'app', whose peak per object is higher than the CLI's.
 *
 * `HEAPSCOPE_MEMORY_LIMIT` (bytes, or with a K/M/G/T suffix, binary: `512M`, `4G`) replaces the
 * measured value: a cap for users sharing a machine, and the tests' hook.
 */
export function memoryBudget(env: NodeJS.ProcessEnv = process.env, path: MemoryPath = 'cli'): MemoryBudget {
  const limit = parseMemoryLimit(env.HEAPSCOPE_MEMORY_LIMIT);
  if (limit !== null) return { availableBytes: limit, source: `HEAPSCOPE_MEMORY_LIMIT=${env.HEAPSCOPE_MEMORY_LIMIT}`, path };
  const available = (process as { availableMemory?: () => number }).availableMemory?.() ?? freemem();
  return { availableBytes: available, source: 'available system memory', path };
}

const UNITS: Record<string, number> = { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };

/** `4G` → 4 GiB in bytes; null when unset, empty or not a size (then the system's value is used). */
export function parseMemoryLimit(text: string | undefined): number | null {
  if (!text) return null;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*$/i.exec(text);
  if (!m) return null;
  return Math.floor(Number(m[1]) * UNITS[m[2].toUpperCase()]);
}
