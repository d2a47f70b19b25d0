import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DumpQueryClient } from '../../electron/dump-reader/dump-query-client.js';
import { findDumpHelper } from '../../electron/dump-reader/helper-process.js';
import { DUMP_CONTENTS_SKIP, writeContentsDump } from '../helpers/dump-contents.js';
import { peerTool } from '../helpers/peer-tools.js';

/**
 * `npx tsx test/perf/dump-queries.bench.ts [DUMP ADDRESS]`
 *
 * What the serve mode saves: a dump query through a kept helper (the app's inspector) against a
 * helper started per query (DAC load each time), and the one-shot `threads` beside SOS
 * `clrthreads` in dotnet-dump (same DAC, same dump) as a ratio. Without arguments it dumps
 * test/dotnet/DumpContentsApp with `heapscope dump` and queries its first Main-frame root.
 * Prints wall ms; the one-shot rows also the child's CPU ms (user+sys from /usr/bin/time when present).
 */
function timed(cmd: string, args: string[]): { ms: number; cpuMs: number | null; ok: boolean } {
  const time = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
  const t = performance.now();
  const r = time ? spawnSync(time, ['-f', 'CPU %U %S', cmd, ...args], { encoding: 'utf8' }) : spawnSync(cmd, args, { encoding: 'utf8' });
  const ms = performance.now() - t;
  const m = /CPU ([\d.]+) ([\d.]+)\s*$/.exec(r.stderr ?? '');
  return { ms: Math.round(ms), cpuMs: m ? Math.round((Number(m[1]) + Number(m[2])) * 1000) : null, ok: r.status === 0 };
}

async function main(): Promise<void> {
  let dump = process.argv[2];
  let address = process.argv[3];
  let cleanup: string | null = null;
  if (!dump) {
    if (DUMP_CONTENTS_SKIP) throw new Error(DUMP_CONTENTS_SKIP);
    const d = await writeContentsDump();
    dump = d.dump;
    cleanup = d.dir;
  }
  const helper = findDumpHelper();
  if (!helper) throw new Error('the dump reader is not built (npm run build:dump-reader)');
  try {
    const c = new DumpQueryClient(dump, 'bench');
    let t = performance.now();
    const threads = await c.query({ query: 'threads' });
    const firstMs = performance.now() - t;
    address ??= threads.threads.flatMap((x) => x.frames.flatMap((f) => f.roots))[0]?.address;
    if (!address) throw new Error('no stack root to query');
    const N = 200;
    t = performance.now();
    for (let i = 0; i < N; i++) await c.query({ query: 'object', address });
    const objectMs = (performance.now() - t) / N;
    t = performance.now();
    await c.query({ query: 'threads' });
    const threadsMs = performance.now() - t;
    await c.close();

    const oneShotObject = timed('dotnet', [helper, 'object', dump, address]);
    const oneShotThreads = timed('dotnet', [helper, 'threads', dump]);
    const sos = peerTool('dotnet-dump');
    const peer = sos ? timed(sos, ['analyze', dump, '-c', 'clrthreads', '-c', 'exit']) : null;
    const rows = {
      dump,
      serveFirstQueryMs: Math.round(firstMs), // helper start + DAC load + the threads walk
      serveObjectQueryMs: +objectMs.toFixed(3),
      serveThreadsQueryMs: +threadsMs.toFixed(2),
      oneShotObject,
      oneShotThreads,
      sosClrthreads: peer ?? 'dotnet-dump not found',
      oneShotThreadsVsSos: peer ? +(oneShotThreads.ms / peer.ms).toFixed(2) : null,
    };
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
  } finally {
    if (cleanup) rmSync(cleanup, { recursive: true, force: true });
  }
}

await main();
