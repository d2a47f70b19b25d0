import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

/**
 * What fresh memory costs on this machine, per GiB touched in order (issue 17: why 100M objects
 * cost more than twice 50M in system time). Allocates GIB ArrayBuffers of 1 GiB one after the
 * other, writes one byte per 4 KiB page, and prints the system CPU time per 4 KiB page of each
 * GiB: the kernel's page-fault cost, plus the hypervisor's when the machine is a VM that backs
 * its memory lazily. Then the same in a child process started with huge pages
 * (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, what bin/huge-pages.mjs gives big heaps), where one
 * fault covers 2 MiB.
 *
 *   npx tsx test/perf/page-fault-cost.bench.ts [GIB]   (default 8; needs that much free memory)
 *
 * Nothing of Heapscope runs here: the numbers say how much of a big heap's system time is the
 * machine's, which the analysis-scaling and CLI figures in the README are read against.
 */
const GIB = 1024 * 1024 * 1024;
const PAGES_PER_GIB = GIB / 4096;

function touch(gib: number): number[] {
  const keep: Uint8Array[] = [];
  const perGib: number[] = [];
  for (let i = 0; i < gib; i++) {
    const before = process.cpuUsage();
    const a = new Uint8Array(GIB);
    for (let j = 0; j < a.length; j += 4096) a[j] = 1;
    keep.push(a);
    perGib.push(Math.round((process.cpuUsage(before).system / PAGES_PER_GIB) * 100) / 100);
  }
  return perGib;
}

const gib = Math.max(1, Number(process.argv[2] ?? 8));
if (process.env.PAGE_FAULT_BENCH_CHILD === '1') {
  console.log(JSON.stringify(touch(gib)));
} else {
  const run = (hugePages: boolean): number[] => {
    const env = { ...process.env, PAGE_FAULT_BENCH_CHILD: '1', GLIBC_TUNABLES: hugePages ? 'glibc.malloc.hugetlb=1' : '' };
    const r = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), String(gib)], { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`the child failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as number[];
  };
  const load1 = Math.round(loadavg()[0] * 10) / 10;
  console.log(JSON.stringify({ pages: '4 KiB', systemMicrosecondsPerPageByGiB: run(false), load1 }));
  console.log(JSON.stringify({ pages: '2 MiB (huge pages)', systemMicrosecondsPer4KiBByGiB: run(true), load1 }));
}
