// Transparent huge pages for big heaps (Linux), when asked for: the `heapscope` launcher re-runs the CLI
// with them (issue 17: 100M objects in linear time).
//
// Why: the dominators, retained sizes and per-type pass read arrays of hundreds of MB at random.
// With 4 KiB pages nearly every such read also misses the TLB, and the page tables walked then
// grow with the heap, so the cost per object grows with the heap. 2 MiB pages cover the same
// arrays with 512× fewer entries. Node cannot advise the kernel about one ArrayBuffer, but glibc
// (2.35+) advises huge pages for every mapping it makes when the process starts with
// GLIBC_TUNABLES=glibc.malloc.hugetlb=1, and V8's ArrayBuffers come from those mappings. A
// tunable is read only at process start, so the launcher re-runs node with it: one more process
// start (the README's performance table has its cost and the gain).
//
// When: only when asked (HEAPSCOPE_HUGE_PAGES=1), on Linux with transparent huge pages in
// `madvise` mode (`always` needs nothing, `never` allows nothing); a GLIBC_TUNABLES that already
// sets the tunable (the user's, or the re-run's own) is left alone. Elsewhere (Windows, macOS,
// musl) nothing changes. Not by default: the price is the kernel's, and on the 2-core VM this
// project measures on it was higher than the gain. Each fresh 2 MiB page is zeroed and, in a VM
// that hands freed memory back to its host, backed by the host again; 4 KiB pages often come from
// memory the guest still holds. At 100M objects huge pages cut user time by 8–13% there but
// raised system time ~4×, so the run took 15% more CPU (README, performance table); on a host
// without that cost the TLB's gain should remain.

import { readFileSync } from 'node:fs';

const TUNABLE = 'glibc.malloc.hugetlb';

/** The kernel's transparent huge page mode ('always', 'madvise', 'never'), or null when unknown. */
export function transparentHugePageMode(read = (path) => readFileSync(path, 'utf8')) {
  try {
    const m = /\[(\w+)\]/.exec(read('/sys/kernel/mm/transparent_hugepage/enabled'));
    return m ? m[1] : null;
  } catch {
    return null;
  }
}

/**
 * The environment to re-run the CLI with, so that its memory is advised huge pages, or null to
 * run it as it is (see above).
 */
export function hugePagesEnvironment(env, system = {}) {
  const platform = system.platform ?? process.platform;
  const mode = system.mode ?? transparentHugePageMode;
  if (platform !== 'linux' || env.HEAPSCOPE_HUGE_PAGES !== '1') return null;
  const tunables = env.GLIBC_TUNABLES ?? '';
  if (tunables.includes(TUNABLE)) return null;
  if (mode() !== 'madvise') return null;
  return { ...env, GLIBC_TUNABLES: tunables ? `${tunables}:${TUNABLE}=1` : `${TUNABLE}=1` };
}
