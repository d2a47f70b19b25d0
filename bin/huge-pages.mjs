// Transparent huge pages for big heaps (Linux), chosen by the `heapscope` launcher before the CLI
// runs (issue 17: 100M objects in linear time).
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
// When: Linux, transparent huge pages in `madvise` mode (`always` needs nothing, `never` allows
// nothing), and an argument naming a file of at least HUGE_PAGES_MIN_FILE bytes. The price is
// the kernel's: each fresh 2 MiB page is zeroed and, in a virtual machine, may have to be backed
// by the host first. On the 2-core VM this project measures on, that cost more than the TLB saved
// at 10M and 50M objects and less at 100M (README, performance table), hence the threshold.
// HEAPSCOPE_HUGE_PAGES=0 turns it off, =1 asks for it whatever the files; a GLIBC_TUNABLES that
// already sets the tunable (the user's, or the re-run's own) is left alone. Elsewhere (Windows,
// macOS, musl) nothing changes.

import { readFileSync, statSync } from 'node:fs';

/** Files from this size on (≈ 75M objects of the synthetic .gcdump heaps) run with huge pages. */
export const HUGE_PAGES_MIN_FILE = 1.5 * 1024 * 1024 * 1024;
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

function fileSize(path) {
  try {
    const s = statSync(path);
    return s.isFile() ? s.size : 0;
  } catch {
    return 0;
  }
}

/**
 * The environment to re-run the CLI with, so that its memory is advised huge pages, or null to
 * run it as it is. `args`: the CLI's arguments; every one that is not a flag is tried as a file.
 */
export function hugePagesEnvironment(args, env, system = {}) {
  const platform = system.platform ?? process.platform;
  const mode = system.mode ?? transparentHugePageMode;
  const sizeOf = system.fileSize ?? fileSize;
  if (platform !== 'linux' || env.HEAPSCOPE_HUGE_PAGES === '0') return null;
  const tunables = env.GLIBC_TUNABLES ?? '';
  if (tunables.includes(TUNABLE)) return null;
  if (mode() !== 'madvise') return null;
  const asked = env.HEAPSCOPE_HUGE_PAGES === '1';
  if (!asked && !args.some((a) => !a.startsWith('-') && sizeOf(a) >= HUGE_PAGES_MIN_FILE)) return null;
  return { ...env, GLIBC_TUNABLES: tunables ? `${tunables}:${TUNABLE}=1` : `${TUNABLE}=1` };
}
