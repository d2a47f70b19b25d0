/**
 * `npm run bench:dump [-- --objects N]` (default 5,000,000): process dumps end to end, against
 * SOS. Starts test/dotnet/DumpBenchApp holding ~N objects, then measures
 *
 * - dump write: `heapscope dump -p PID` (the target's runtime writes the core file; wall only:
 *   the work happens in the target's createdump, not in a process of ours);
 * - the helper's heap walk: the dump reader (helperCommand(): $HEAPSCOPE_DUMP_READER, the packaged
 *   executable or the dev build) writing its stream to a file, in objects/s;
 * - decoding that stream and building the graph from it (its columns shared, as in the app),
 *   each alone in this process (wall and CPU: the snapshot worker's share of the load);
 *   `--keep-stream PATH` copies the stream there for profiling;
 * - time to first type rows: the app's load path (SessionManager + the snapshot worker, as
 *   app-load.bench.ts) from open to the first window of type rows (a dump's come from the
 *   helper's type histogram, `session-preliminary`, before the graph), in a fresh process, for
 *   the dump and for a .gcdump of the same process: wall from open to rows (the pool's spare
 *   worker already warm, as in a running app), from Node's start to rows, and from open to the
 *   whole load (`session-ready`, wall and CPU with the helper's);
 * - `dotnet-dump analyze DUMP -c "dumpheap -stat"` on the same dump (SOS's per-type table, the
 *   closest peer to our first type rows), when test/.peer-tools/dotnet-dump exists;
 * - graph memory per object: the graph's columns (as bench.ts counts them) for the dump, with
 *   and without its per-reference field-name column, against the .gcdump's graph.
 *
 * CPU (user + system of the process and its children, from bash's `times`) is printed next to
 * wall time: on a shared machine the difference is waiting for a core. Ratios are measured in
 * this one run. Prints readable lines, then one JSON line (`{"bench":"dump",...}`).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_PSEUDO, NODE_UNDEFINED, type HeapGraph } from '../../shared/graph/heap-graph.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '..', '..');

interface Timed {
  wallMs: number;
  cpuMs: number;
  status: number | null;
  stdout: string;
}

/** Run a shell command with `times` after it: wall time here, CPU of everything it started. */
function timed(cmd: string): Timed {
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', `${cmd}\nstatus=$?\ntimes >&2\nexit $status`], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const wallMs = performance.now() - t0;
  // `times`: the shell's user/sys, then its children's ("0m1.234s 0m0.056s").
  const lines = r.stderr.trim().split('\n');
  const m = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/.exec(lines[lines.length - 1] ?? '');
  const cpuMs = m ? (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000 : NaN;
  if (r.status !== 0) process.stderr.write(`command failed (${r.status}): ${cmd}\n${r.stderr.slice(0, 2000)}\n`);
  return { wallMs, cpuMs, status: r.status, stdout: r.stdout };
}

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function graphColumnBytes(g: HeapGraph): { base: number; fields: number } {
  const base = g.nodeType.byteLength + g.selfSize.byteLength + g.firstEdge.byteLength + g.edgeTarget.byteLength + g.address.byteLength + g.nodeFlags.byteLength + g.generation.byteLength;
  return { base, fields: g.edgeFieldName?.byteLength ?? 0 };
}

function objectsOf(g: HeapGraph): number {
  let n = 0;
  for (let i = 0; i < g.nodeCount; i++) if ((g.nodeFlags[i] & (NODE_PSEUDO | NODE_UNDEFINED)) === 0) n++;
  return n;
}

async function open(path: string): Promise<HeapGraph> {
  const { FileByteSource } = await import('../../electron/files/file-byte-source.js');
  const { readSnapshot } = await import('../../shared/formats/read-snapshot.js');
  await import('../../electron/dump-reader/register-dump-reader.js');
  await import('../../shared/formats/all-readers.js');
  const source = await FileByteSource.open(path);
  try {
    return await readSnapshot(source);
  } finally {
    await source.close();
  }
}

/**
 * CPU seconds of this process and its reaped children so far (Linux /proc/self/stat: utime, stime,
 * cutime, cstime in clock ticks of 1/100 s), or NaN elsewhere. The dump helper is a child that has
 * exited and been waited for by the time the rows arrive, so its CPU is in cutime/cstime.
 */
function cpuSoFarMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields 14–17 of stat(5) are at 11–14 after the ")" (state is field 3).
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return NaN;
  }
}

/**
 * Child mode: open FILE through the app's workers, print ms to the first type rows, exit at once.
 * A dump's first rows come with `session-preliminary` (the helper's type histogram, before the
 * graph): the child asks for rows at that event or at `session-ready`, whichever comes first, as
 * the app's Types grid does; it then waits for `session-ready` too (`readyMs`: the whole load)
 * and closes the session. `processToRowsMs` is the time from Node's start to the rows, the
 * figure compared with the dotnet-dump process. CPU: `openCpuMs` counts the helper only once it
 * has exited (reaped), so with early rows it is this process's CPU alone; `readyCpuMs` has both.
 * The app keeps one snapshot worker warm from launch (WorkerPool.ensureSpare), so the child waits
 * until that worker answers before the clock starts, as a running app would have it; `openCpuMs`
 * is the CPU from open to rows (this process's threads and the helper), without Node's start-up.
 */
async function firstRowsChild(path: string): Promise<void> {
  const { FileRegistry } = await import('../../electron/host/file-registry.js');
  const { SessionManager } = await import('../../electron/host/session-manager.js');
  const { builtWorkerScripts, devWorkerScripts } = await import('../../electron/workers/worker-scripts.js');
  const built = join(REPO, 'out', 'workers');
  const scripts = existsSync(join(built, 'snapshot.worker.mjs')) ? builtWorkerScripts(built) : devWorkerScripts();
  let preliminary: () => void = () => undefined;
  const early = new Promise<void>((r) => (preliminary = r));
  const mgr = new SessionManager({ scripts, poolSize: 2, emit: (name) => name === 'session-preliminary' && preliminary() });
  await Promise.all(mgr.pool.allWorkers().map((w) => w.call('stats', {})));
  const file = await new FileRegistry().register(path, 'path');
  const cpu0 = cpuSoFarMs();
  const t0 = performance.now();
  const info = mgr.open(file, path);
  const ready = mgr.summary(info.sessionId);
  const preliminaryRows = await Promise.race([early.then(() => true), ready.then(() => false)]);
  const w = await mgr.query('typeRows', { sessionId: info.sessionId, sort: { key: 'shallowSize', dir: 'desc' }, start: 0, end: 100 });
  const ms = performance.now() - t0;
  const processToRowsMs = performance.now();
  const openCpuMs = Math.round(cpuSoFarMs() - cpu0);
  const summary = await ready;
  const readyMs = performance.now() - t0;
  // The helper has exited (END read, then close() waits for its exit); give Node a moment to reap it.
  await new Promise((r) => setTimeout(r, 50));
  const readyCpuMs = Math.round(cpuSoFarMs() - cpu0);
  const out = { firstRowsMs: Math.round(ms), processToRowsMs: Math.round(processToRowsMs), preliminaryRows, openCpuMs, readyMs: Math.round(readyMs), readyCpuMs };
  process.stdout.write(JSON.stringify({ ...out, parseMs: summary.parseMs, nodes: summary.nodeCount, types: w.total, workers: scripts.snapshot.tsEntry ? 'tsx sources' : 'built' }) + '\n');
  process.exit(0);
}

type FirstRows = { firstRowsMs: number; processToRowsMs: number; preliminaryRows: boolean; openCpuMs: number; readyMs: number; readyCpuMs: number; types: number; workers: string };

function firstRows(path: string): Timed & FirstRows {
  const t = timed(`${q(process.execPath)} --import tsx ${q(join(HERE, 'dump.bench.ts'))} --first-rows ${q(path)}`);
  const j = JSON.parse(t.stdout.trim().split('\n').pop() ?? '{}') as FirstRows;
  return { ...t, ...j };
}

/**
 * The snapshot worker's two steps on a saved stream, in this process: decodeDumpStream, then
 * dumpRecordsToGraph, each as wall and CPU (process.cpuUsage, so it includes V8's GC threads),
 * with the app's columns in SharedArrayBuffers.
 */
async function decodeAndBuild(path: string): Promise<{ streamBytes: number; decodeWallMs: number; decodeCpuMs: number; buildWallMs: number; buildCpuMs: number; smallObjectHeapBytesPerObject: number }> {
  const { FileByteSource } = await import('../../electron/files/file-byte-source.js');
  const { decodeDumpStream } = await import('../../shared/formats/dump/dump-stream.js');
  const { dumpRecordsToGraph } = await import('../../shared/formats/dump/dump-graph.js');
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const source = await FileByteSource.open(path);
  try {
    const c0 = cpu();
    const t0 = performance.now();
    const r = await decodeDumpStream(source);
    const c1 = cpu();
    const t1 = performance.now();
    const g = dumpRecordsToGraph(r, undefined, true);
    const c2 = cpu();
    const t2 = performance.now();
    if (g.nodeCount <= r.objectCount) throw new Error('no graph');
    return {
      streamBytes: statSync(path).size,
      decodeWallMs: Math.round(t1 - t0),
      decodeCpuMs: Math.round(c1 - c0),
      buildWallMs: Math.round(t2 - t1),
      buildCpuMs: Math.round(c2 - c1),
      smallObjectHeapBytesPerObject: +(Number(r.info.smallObjectHeapBytes) / r.objectCount).toFixed(1),
    };
  } finally {
    await source.close();
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--first-rows');
  if (at >= 0) return firstRowsChild(argv[at + 1]);
  const objectsArg = argv.indexOf('--objects');
  const objects = objectsArg >= 0 ? Number(argv[objectsArg + 1]) : 5_000_000;
  // Imported here, not at the top: the --first-rows child (timed as a whole) must not pay for the
  // CLI's modules or the `dotnet --version` probe of dotnet-app.ts.
  const { runCli } = await import('../../electron/cli/main.js');
  const { helperCommand } = await import('../../electron/dump-reader/helper-process.js');
  const { captureIo } = await import('../helpers/capture-io.js');
  const { buildDotnetApp, HAS_DOTNET, startDotnetApp } = await import('../helpers/dotnet-app.js');
  const { peerTool } = await import('../helpers/peer-tools.js');
  const helper = helperCommand();
  if (!HAS_DOTNET || !helper) {
    process.stdout.write(`dump bench skipped: ${!HAS_DOTNET ? 'no .NET SDK (dotnet)' : 'the dump reader is not built (npm run build:dump-reader)'}\n`);
    return;
  }
  const dotnetDump = peerTool('dotnet-dump');
  const dir = mkdtempSync(join(tmpdir(), 'heapscope-dump-bench-'));
  const dump = join(dir, 'bench.dmp');
  const gcdump = join(dir, 'bench.gcdump');
  try {
    const app = await startDotnetApp(buildDotnetApp('DumpBenchApp'), ['--objects', String(objects)], 300_000);
    let dumpMs = 0;
    let gcdumpMs = 0;
    try {
      let t0 = performance.now();
      const c = captureIo();
      if ((await runCli(['dump', '-p', String(app.pid), '-o', dump], c.io)) !== 0) throw new Error(`heapscope dump failed: ${c.err}`);
      dumpMs = performance.now() - t0;
      t0 = performance.now();
      const g = captureIo();
      if ((await runCli(['collect', '-p', String(app.pid), '-o', gcdump], g.io)) !== 0) throw new Error(`heapscope collect failed: ${g.err}`);
      gcdumpMs = performance.now() - t0;
    } finally {
      // After a dump Node may miss the app's exit (see test/helpers/process-dump.ts): bounded stop, then kill.
      await Promise.race([app.stop(), new Promise((r) => setTimeout(r, 15_000))]);
      try {
        process.kill(app.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }

    // The stream goes to a file in the bench's directory (page cache: a write costs little) so the
    // decode and the graph build can be timed on it alone below.
    const stream = join(dir, 'bench.stream');
    const walk = timed(`${[helper.command, ...helper.args, dump].map(q).join(' ')} > ${q(stream)}`);
    const phases = await decodeAndBuild(stream);
    const keepAt = argv.indexOf('--keep-stream');
    if (keepAt >= 0) copyFileSync(stream, argv[keepAt + 1]);
    const rowsDump = firstRows(dump);
    const rowsGcdump = firstRows(gcdump);
    const sos = dotnetDump ? timed(`${q(dotnetDump)} analyze ${q(dump)} -c 'dumpheap -stat' -c exit > /dev/null`) : null;

    const gd = await open(dump);
    const dumpObjects = objectsOf(gd);
    const dumpCols = graphColumnBytes(gd);
    const gg = await open(gcdump);
    const gcdumpObjects = objectsOf(gg);
    const gcdumpCols = graphColumnBytes(gg);

    const perObj = (b: number, n: number) => b / n;
    const result = {
      bench: 'dump',
      objectsRequested: objects,
      helper: helper.source,
      dumpBytes: statSync(dump).size,
      gcdumpBytes: statSync(gcdump).size,
      dumpWriteMs: Math.round(dumpMs),
      gcdumpCollectMs: Math.round(gcdumpMs),
      decode: phases,
      walk: { wallMs: Math.round(walk.wallMs), cpuMs: Math.round(walk.cpuMs), objects: dumpObjects, objectsPerSec: Math.round(dumpObjects / (walk.wallMs / 1000)), objectsPerCpuSec: Math.round(dumpObjects / (walk.cpuMs / 1000)) },
      firstTypeRowsDump: {
        openToRowsMs: rowsDump.firstRowsMs,
        openToRowsCpuMs: rowsDump.openCpuMs,
        preliminaryRows: rowsDump.preliminaryRows,
        processToRowsMs: rowsDump.processToRowsMs,
        openToReadyMs: rowsDump.readyMs,
        openToReadyCpuMs: rowsDump.readyCpuMs,
        processWallMs: Math.round(rowsDump.wallMs),
        processCpuMs: Math.round(rowsDump.cpuMs),
        types: rowsDump.types,
        workers: rowsDump.workers,
      },
      firstTypeRowsGcdump: { openToRowsMs: rowsGcdump.firstRowsMs, openToRowsCpuMs: rowsGcdump.openCpuMs, processWallMs: Math.round(rowsGcdump.wallMs), processCpuMs: Math.round(rowsGcdump.cpuMs), types: rowsGcdump.types },
      dumpheapStat: sos ? { wallMs: Math.round(sos.wallMs), cpuMs: Math.round(sos.cpuMs) } : null,
      // Node's start → rows against the whole dotnet-dump process (the child goes on to the end of
      // the load, so its own wall is no longer the time to rows); CPU: the whole child, load included
      ratioFirstRowsToDumpheap: sos ? { wall: +(rowsDump.processToRowsMs / sos.wallMs).toFixed(2), cpu: +(rowsDump.cpuMs / sos.cpuMs).toFixed(2) } : null,
      // open → rows in a running app (worker warm, Node started) against the whole dotnet-dump process
      // CPU: open → ready (the helper is still walking when early rows arrive, and its CPU counts only once it has exited)
      ratioOpenToRowsToDumpheap: sos ? { wall: +(rowsDump.firstRowsMs / sos.wallMs).toFixed(2), cpu: +(rowsDump.readyCpuMs / sos.cpuMs).toFixed(2) } : null,
      graph: {
        dumpObjects,
        gcdumpObjects,
        dumpBytesPerObject: +perObj(dumpCols.base, dumpObjects).toFixed(1),
        dumpFieldNameBytesPerObject: +perObj(dumpCols.fields, dumpObjects).toFixed(1),
        gcdumpBytesPerObject: +perObj(gcdumpCols.base, gcdumpObjects).toFixed(1),
        ratioWithoutFieldNames: +(perObj(dumpCols.base, dumpObjects) / perObj(gcdumpCols.base, gcdumpObjects)).toFixed(2),
        ratioWithFieldNames: +(perObj(dumpCols.base + dumpCols.fields, dumpObjects) / perObj(gcdumpCols.base, gcdumpObjects)).toFixed(2),
      },
    };
    const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const lines = [
      `DumpBenchApp, ${dumpObjects.toLocaleString('en-US')} objects in the dump (${gcdumpObjects.toLocaleString('en-US')} in the .gcdump); dump ${(result.dumpBytes / 1e6).toFixed(0)} MB, .gcdump ${(result.gcdumpBytes / 1e6).toFixed(0)} MB; helper: ${helper.source}`,
      `dump write (heapscope dump)          ${s(dumpMs)} wall (work done by the target's createdump)`,
      `.gcdump collect (heapscope collect)  ${s(gcdumpMs)} wall`,
      `helper heap walk → a file           ${s(walk.wallMs)} wall, ${s(walk.cpuMs)} CPU: ${result.walk.objectsPerSec.toLocaleString('en-US')} objects/s (${result.walk.objectsPerCpuSec.toLocaleString('en-US')} per CPU s)`,
      `decode the helper's stream, alone    ${s(phases.decodeWallMs)} wall, ${s(phases.decodeCpuMs)} CPU; build the graph ${s(phases.buildWallMs)} wall, ${s(phases.buildCpuMs)} CPU (${(phases.streamBytes / 1e6).toFixed(0)} MB; smallObjectHeapBytes ${phases.smallObjectHeapBytesPerObject} per object)`,
      `first type rows, dump (app workers)  ${s(rowsDump.firstRowsMs)} wall open → rows${rowsDump.preliminaryRows ? ' (preliminary: helper stats pass)' : ''}, Node start → rows ${s(rowsDump.processToRowsMs)}; open → ready ${s(rowsDump.readyMs)} wall, ${s(rowsDump.readyCpuMs)} CPU (with the helper); process ${s(rowsDump.wallMs)} wall, ${s(rowsDump.cpuMs)} CPU`,
      `first type rows, same .gcdump        ${s(rowsGcdump.firstRowsMs)} wall, ${s(rowsGcdump.openCpuMs)} CPU open → rows; process ${s(rowsGcdump.wallMs)} wall, ${s(rowsGcdump.cpuMs)} CPU`,
      sos ? `dotnet-dump analyze -c "dumpheap -stat" ${s(sos.wallMs)} wall, ${s(sos.cpuMs)} CPU` : 'dotnet-dump: not installed (test/tools/install-peer-tools.sh): no SOS comparison',
      sos ? `ratio first rows / dumpheap -stat    ${result.ratioFirstRowsToDumpheap!.wall}× wall (Node start → rows against the dotnet-dump process; target ≤ 1×), ${result.ratioFirstRowsToDumpheap!.cpu}× CPU (whole load)` : '',
      sos ? `ratio open → rows / dumpheap -stat   ${result.ratioOpenToRowsToDumpheap!.wall}× wall, ${result.ratioOpenToRowsToDumpheap!.cpu}× CPU open → ready (a running app's open against the dotnet-dump process)` : '',
      `graph columns per object             dump ${result.graph.dumpBytesPerObject} B + ${result.graph.dumpFieldNameBytesPerObject} B field names; .gcdump ${result.graph.gcdumpBytesPerObject} B: ${result.graph.ratioWithoutFieldNames}× without, ${result.graph.ratioWithFieldNames}× with field names (target ≤ 1.2× plus strings)`,
    ];
    process.stdout.write(lines.filter(Boolean).join('\n') + '\n' + JSON.stringify(result) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
