/**
 * The parse floor (issue 17 item 3): test/perf/floor/leb128-floor.c, built here with the system
 * compiler (`cc -O2`, or $CC) into the OS temp directory at bench time and never committed, reads
 * a .gcdump and decodes every byte of it as the node blob's compressed ints. Its time is the
 * physical minimum of a parse on this machine; the bench prints Heapscope's parse time divided
 * by it. Without a compiler the floor is skipped with the reason printed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = join(dirname(fileURLToPath(import.meta.url)), 'floor', 'leb128-floor.c');

export interface FloorRun {
  bytes: number;
  ints: number;
  readMs: number;
  decodeMs: number;
  wallMs: number;
  cpuMs: number;
}

export interface FloorResult {
  /** Median of the runs by wall time (the file is in the page cache after the first). */
  median: FloorRun;
  runs: FloorRun[];
  compiler: string;
}

/** The floor binary's path, built when missing or older than its source; or why it cannot be. */
export function buildFloor(): { binary: string; compiler: string } | { skipped: string } {
  const compiler = process.env.CC ?? 'cc';
  const dir = join(tmpdir(), 'heapscope-floor');
  mkdirSync(dir, { recursive: true });
  const binary = join(dir, 'leb128-floor');
  if (existsSync(binary) && statSync(binary).mtimeMs >= statSync(SOURCE).mtimeMs) return { binary, compiler };
  const r = spawnSync(compiler, ['-O2', '-std=c11', '-o', binary, SOURCE], { encoding: 'utf8' });
  if (r.error) return { skipped: `no C compiler (${compiler}: ${r.error.message}); install one (apt-get install gcc) or set CC` };
  if (r.status !== 0) return { skipped: `${compiler} -O2 failed: ${r.stderr.trim().split('\n')[0]}` };
  return { binary, compiler };
}

/** Runs the floor `repeats` times on `file` (one process, so the file stays cached). */
export function runFloor(file: string, repeats = 3): FloorResult | { skipped: string } {
  const built = buildFloor();
  if ('skipped' in built) return built;
  const r = spawnSync(built.binary, [file, String(repeats)], { encoding: 'utf8' });
  if (r.status !== 0) return { skipped: `the floor program failed on ${file}: ${r.stderr.trim()}` };
  const runs = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as FloorRun);
  const sorted = [...runs].sort((a, b) => a.wallMs - b.wallMs);
  return { median: sorted[Math.floor(sorted.length / 2)], runs, compiler: built.compiler };
}
