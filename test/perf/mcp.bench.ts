/**
 * `npx tsx test/perf/mcp.bench.ts [objects] [--runs N]`
 *
 * 1. CLI start-up: `heapscope --help` N times (default 10), the bundle (`npm run build:cli`) when
 *    built, else the sources through tsx; mean wall and CPU (user + system, reported by the child
 *    at exit). `heapscope mcp` must not make other commands start slower: its SDK sits in a chunk
 *    loaded on demand, so this should not move when the MCP code grows.
 * 2. An MCP session over stdio (the SDK's client, as an assistant): open_snapshot on a synthetic
 *    .NET-like heap (default 1M objects, written once into the OS temp directory), then each tool
 *    once: wall time per call, the answer's size in characters, and the server's CPU where /proc
 *    exists; next to `heapscope report --sort retained` on the same file, as a ratio (open runs
 *    the full dominator analysis, report only its per-type part).
 * 3. Concurrency and memory: a ping sent when the open reaches its dominator phase (the snapshot's
 *    worker thread is busy; the main thread should answer at once), and the server's resident
 *    memory idle, with the snapshot open, and 1 s after close_snapshot (its worker ended).
 * Prints readable lines, then one JSON line (`{"bench":"mcp",...}`). CPU time is printed next to
 * wall time: on a shared machine the difference is waiting for a core.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { syntheticHeap } from '../helpers/random-graph.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(REPO, 'bin', 'heapscope.mjs');
const BUNDLED = existsSync(join(REPO, 'out', 'cli', 'heapscope.mjs'));
/** The child prints its own CPU time at exit (no rusage for children in Node's spawnSync). */
const CPU_AT_EXIT = `data:text/javascript,process.on('exit',()=>{const u=process.cpuUsage();process.stderr.write('\\ncpu-us '+(u.user+u.system)+'\\n')})`;

function timedCli(args: string[]): { wallMs: number; cpuMs: number } {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--import', CPU_AT_EXIT, BIN, ...args], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const wallMs = performance.now() - t0;
  const m = /cpu-us (\d+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`heapscope ${args.join(' ')} failed: ${r.stderr}`);
  return { wallMs, cpuMs: Number(m[1]) / 1000 };
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function startup(runs: number): { wallMs: number; cpuMs: number } {
  const all = Array.from({ length: runs }, () => timedCli(['--help']));
  return { wallMs: Math.round(mean(all.map((r) => r.wallMs))), cpuMs: Math.round(mean(all.map((r) => r.cpuMs))) };
}

function syntheticFile(objects: number): string {
  const file = join(tmpdir(), `heapscope-mcp-bench-${objects}.gcdump`);
  if (!existsSync(file)) writeFileSync(file, Buffer.concat(writeGcdump(syntheticHeap(objects, 2.5, 1))));
  return file;
}

/** The server's CPU seconds so far (Linux /proc; null elsewhere). */
function serverCpuMs(pid: number | null): number | null {
  if (pid === null || !existsSync(`/proc/${pid}/stat`)) return null;
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms (USER_HZ 100)
}

interface CallResult {
  tool: string;
  wallMs: number;
  serverCpuMs: number | null;
  answerChars: number;
}

/** The server's resident memory in MiB (Linux /proc; null elsewhere). */
function serverRssMiB(pid: number | null): number | null {
  if (pid === null || !existsSync(`/proc/${pid}/status`)) return null;
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : null;
}

interface SessionExtras {
  pingDuringOpenMs: number | null;
  rssIdleMiB: number | null;
  rssOpenMiB: number | null;
  rssClosedMiB: number | null;
}
const extras: SessionExtras = { pingDuringOpenMs: null, rssIdleMiB: null, rssOpenMiB: null, rssClosedMiB: null };

async function session(file: string): Promise<CallResult[]> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'ignore' });
  const client = new Client({ name: 'mcp-bench', version: '1' });
  await client.connect(transport);
  const results: CallResult[] = [];
  let ping: Promise<void> | null = null;
  const onprogress = (p: { message?: string }) => {
    if (ping || !p.message?.startsWith('dominators')) return;
    const t0 = performance.now();
    ping = client.ping().then(() => void (extras.pingDuringOpenMs = Math.round(performance.now() - t0)));
  };
  const call = async (tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const c0 = serverCpuMs(transport.pid);
    const t0 = performance.now();
    const r = (await client.callTool({ name: tool, arguments: args }, undefined, tool === 'open_snapshot' ? { onprogress, timeout: 600_000 } : undefined)) as {
      isError?: boolean;
      content: { text: string }[];
    };
    const wallMs = Math.round(performance.now() - t0);
    const c1 = serverCpuMs(transport.pid);
    const text = r.content[0].text;
    if (r.isError) throw new Error(`${tool}: ${text}`);
    results.push({ tool, wallMs, serverCpuMs: c0 === null || c1 === null ? null : c1 - c0, answerChars: text.length });
    return JSON.parse(text) as Record<string, unknown>;
  };
  try {
    await client.listTools(); // the MCP chunk is loaded: the idle server
    extras.rssIdleMiB = serverRssMiB(transport.pid);
    const s = (await call('open_snapshot', { path: file })).snapshot;
    await call('summary', { snapshot: s });
    const types = (await call('top_types', { snapshot: s })).rows as { type: string }[];
    const dom = (await call('dominators', { snapshot: s })).rows as { node: number }[];
    await call('dominators', { snapshot: s, node: dom[0].node });
    await call('inspections', { snapshot: s });
    await call('paths_to_roots', { snapshot: s, type: types[0].type });
    await ping;
    extras.rssOpenMiB = serverRssMiB(transport.pid);
    await call('close_snapshot', { snapshot: s });
    await new Promise((r) => setTimeout(r, 1000));
    extras.rssClosedMiB = serverRssMiB(transport.pid);
  } finally {
    await client.close();
  }
  return results;
}

const argv = process.argv.slice(2);
const runsAt = argv.indexOf('--runs');
const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : 10;
const objects = Number(argv.find((a, i) => /^\d+$/.test(a) && argv[i - 1] !== '--runs') ?? 1_000_000);

const up = startup(runs);
console.log(`heapscope --help (${BUNDLED ? 'bundle' : 'sources through tsx'}), ${runs} runs: ${up.wallMs} ms wall, ${up.cpuMs} ms CPU (means)`);
const file = syntheticFile(objects);
const report = timedCli(['report', file, '--sort', 'retained', '--top', '20', '--format', 'json']);
console.log(`heapscope report --sort retained on ${objects.toLocaleString('en-US')} objects: ${Math.round(report.wallMs)} ms wall, ${Math.round(report.cpuMs)} ms CPU`);
const calls = await session(file);
for (const c of calls) {
  console.log(`  ${c.tool.padEnd(15)} ${String(c.wallMs).padStart(6)} ms wall  ${c.serverCpuMs === null ? '' : `${String(c.serverCpuMs).padStart(6)} ms server CPU  `}${c.answerChars} chars`);
}
const open = calls[0];
console.log(`open_snapshot / report: ${(open.wallMs / report.wallMs).toFixed(2)}× wall${open.serverCpuMs === null ? '' : `, ${(open.serverCpuMs / report.cpuMs).toFixed(2)}× CPU`}`);
console.log(`ping sent in the open's dominator phase: answered in ${extras.pingDuringOpenMs ?? '?'} ms; server RSS ${extras.rssIdleMiB ?? '?'} MiB idle, ${extras.rssOpenMiB ?? '?'} MiB with the snapshot open, ${extras.rssClosedMiB ?? '?'} MiB 1 s after close_snapshot`);
console.log(JSON.stringify({ bench: 'mcp', bundled: BUNDLED, objects, startup: up, report: { wallMs: Math.round(report.wallMs), cpuMs: Math.round(report.cpuMs) }, calls, ...extras }));
