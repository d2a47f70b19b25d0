import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../electron/cli/main.js';
import { captureIo } from '../helpers/capture-io.js';
import type { DominatorCliRow } from '../../electron/cli/commands/dominators.js';
import type { InfoJson } from '../../electron/cli/commands/info.js';
import { fixturePath, NO_FIXTURES } from '../helpers/fixtures.js';
import type { DominatorJson, DominatorsJson, InspectionsJson, ObjectPathsJson, OpenJson, PageJson, ToolErrorJson, TypePathsJson, TypeRowJson } from '../helpers/mcp-answers.js';
import type { SuspectsReport } from '../../shared/analysis/suspects/index.js';
import { generateGcdump } from '../tools/gen-gcdump.js';

type SuspectsJson = SuspectsReport & { snapshot: string };

/**
 * `heapscope mcp` driven by the SDK's own client over stdio, as an assistant would: the real
 * launcher (bin/heapscope.mjs, sources through tsx) as a child process. Every number is compared
 * with the CLI's JSON for the same file (runCli in this process), and the sample's known figures.
 */
const bin = join(__dirname, '../../bin/heapscope.mjs');
const SAMPLE = join(__dirname, '../../electron/resources/sample.gcdump');
const android1 = fixturePath('gcdump/mono_android_20231108_150515_31024.gcdump');
const android2 = fixturePath('gcdump/mono_android_20231108_150644_31024.gcdump');
const dir = mkdtempSync(join(tmpdir(), 'heapscope-mcp-'));
const env = { ...process.env, HEAPSCOPE_FROM_SOURCE: '1' } as Record<string, string>;

interface DiffJson {
  base: string;
  new: string;
  total: Record<string, number>;
  added: number;
  removed: number;
  rows: unknown[];
}

let client: Client;
let transport: StdioClientTransport;
let serverLog = '';

beforeAll(async () => {
  transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--max-open', '2'], env, stderr: 'pipe' });
  transport.stderr?.on('data', (d: Buffer) => (serverLog += d.toString()));
  client = new Client({ name: 'heapscope-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cliText(...argv: string[]): Promise<string> {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  expect([code, c.err]).toEqual([0, '']);
  return c.out;
}

async function cliJson<T = Record<string, unknown>>(...argv: string[]): Promise<T> {
  const c = captureIo();
  const code = await runCli(argv, c.io);
  expect([code, c.err]).toEqual([0, '']);
  return JSON.parse(c.out) as T;
}

interface ToolAnswer<T> {
  isError: boolean;
  json: T;
}

async function call<T = ToolErrorJson>(name: string, args: Record<string, unknown>): Promise<ToolAnswer<T>> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
  expect(r.content).toHaveLength(1);
  return { isError: r.isError === true, json: JSON.parse(r.content[0].text) as T };
}

async function ok<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T> {
  const r = await call<T>(name, args);
  expect(r.isError, JSON.stringify(r.json)).toBe(false);
  return r.json;
}

describe('heapscope mcp over stdio', () => {
  it('lists its tools, each with a description', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['close_snapshot', 'diff', 'dominators', 'inspections', 'open_snapshot', 'paths_to_roots', 'summary', 'suspects', 'top_types']);
    for (const t of tools) expect(t.description!.length).toBeGreaterThan(40);
  });

  it('answers on the bundled sample with the numbers of heapscope info, report, dominators, inspect, suspects and paths', async () => {
    const opened = await ok<OpenJson>('open_snapshot', { path: SAMPLE });
    const id = opened.snapshot;
    const info = await cliJson<InfoJson>('info', SAMPLE, '--format', 'json');
    expect(opened).toMatchObject({ file: 'sample.gcdump', fileSize: info.fileSize, objectCount: info.objectCount, totalSize: info.totalSize, typeCount: info.typeCount, openSnapshots: [id] });

    // summary = info's JSON (without the root tree and problem messages) + reachability
    const summary = await ok<{ reachableBytes: number; unreachableBytes: number }>('summary', { snapshot: id });
    const { rootCategories: _t, problems, ...infoRest } = info;
    expect(summary).toMatchObject({ ...infoRest, problems: { total: problems.total, counts: problems.counts } });
    const domCli = await cliJson<DominatorCliRow[]>('dominators', SAMPLE, '--format', 'json', '--top', '5', '--depth', '2');
    expect(summary.reachableBytes).toBe(domCli[0].retainedSize);
    expect(opened.reachableBytes).toBe(domCli[0].retainedSize);
    expect(summary.reachableBytes + summary.unreachableBytes).toBeLessThanOrEqual(info.totalSize);

    // top_types = report --sort retained, paged
    const report = await cliJson<Record<string, unknown>[]>('report', SAMPLE, '--format', 'json', '--sort', 'retained');
    const page1 = await ok<PageJson<TypeRowJson>>('top_types', { snapshot: id, limit: 7 });
    const page2 = await ok<PageJson<TypeRowJson>>('top_types', { snapshot: id, offset: 7, limit: 7 });
    expect(page1.rows).toEqual(report.slice(0, 7));
    expect(page2.rows).toEqual(report.slice(7, 14));
    expect([page1.totalRows, page1.nextOffset, page2.offset]).toEqual([report.length, 7, 7]);
    const views = await ok<PageJson<TypeRowJson>>('top_types', { snapshot: id, filter: 'reportview' });
    expect(views.rows.map((r) => [r.type, r.count, r.shallowSize, r.retainedSize])).toEqual([['SampleShop.ReportView', 150, 4_800, 166_800]]);
    const bySize = await ok<PageJson<TypeRowJson>>('top_types', { snapshot: id, sort: 'count', limit: 3 });
    expect(bySize.rows).toEqual(await cliJson<Record<string, unknown>[]>('report', SAMPLE, '--format', 'json', '--sort', 'count', '--top', '3'));

    // dominators: the root's children, then one child's children, as the CLI's depth-1 and depth-2 rows
    const root = await ok<DominatorsJson>('dominators', { snapshot: id, limit: 5 });
    const depth1 = domCli.filter((r) => r.depth === 1);
    const pick = ({ node, type, address, shallowSize, retainedSize, percentOfReachable, pseudo, childCount }: DominatorJson): DominatorJson => ({ node, type, address, shallowSize, retainedSize, percentOfReachable, pseudo, childCount });
    expect(root.rows).toEqual(depth1.map(pick));
    expect(root.parent).toEqual(pick(domCli[0]));
    const first = depth1[0];
    const below = await ok<DominatorsJson>('dominators', { snapshot: id, node: first.node, limit: 5 });
    expect(below.rows).toEqual(domCli.filter((r) => r.depth === 2 && r.parent === first.node).map(pick));
    expect(below.totalRows).toBe(first.childCount);

    // inspections = inspect --top 5
    const insp = await ok<InspectionsJson>('inspections', { snapshot: id });
    const inspCli = await cliJson('inspect', SAMPLE, '--format', 'json', '--top', '5');
    expect({ ...insp, snapshot: undefined }).toEqual({ ...inspCli, snapshot: undefined });
    const leak = insp.findings.find((f) => f.kind === 'event-handler-leak')!;
    expect([leak.objects, leak.bytes, leak.details.subscriberType]).toEqual([150, 166_800, 'SampleShop.ReportView']);

    // suspects = suspects --format json (md: the Markdown text); the sample's four big collections
    const susp = await ok<SuspectsJson>('suspects', { snapshot: id });
    expect(susp).toEqual({ snapshot: id, ...(await cliJson('suspects', SAMPLE, '--format', 'json')) });
    expect([susp.suspectCount, susp.suspects.map((x) => x.retainedSize), susp.suspects[0].accumulationPoint.elementCount]).toEqual([4, [1_980_066, 1_048_760, 787_808, 747_488], 1481]);
    const strict = await ok<SuspectsJson>('suspects', { snapshot: id, thresholdPercent: 15 });
    expect(strict).toEqual({ snapshot: id, ...(await cliJson('suspects', SAMPLE, '--format', 'json', '--threshold', '15')) });
    expect(strict.suspects.map((x) => x.retainedSize)).toEqual([1_980_066, 1_048_760]);
    const md = await ok<{ snapshot: string; markdown: string }>('suspects', { snapshot: id, format: 'md' });
    expect(md).toEqual({ snapshot: id, markdown: await cliText('suspects', SAMPLE, '--format', 'md') });
    // a threshold outside (0, 100] is refused by the schema, before the tool runs
    const refused = (await client.callTool({ name: 'suspects', arguments: { snapshot: id, thresholdPercent: 0 } })) as { isError?: boolean; content: { text: string }[] };
    expect([refused.isError, refused.content[0].text.startsWith('MCP error -32602: Input validation error')]).toEqual([true, true]);

    // paths_to_roots by address (an example subscriber) and by type
    const address = leak.examples[0].address;
    const byAddr = await ok<ObjectPathsJson>('paths_to_roots', { snapshot: id, address, maxPaths: 3 });
    expect(byAddr).toEqual(await cliJson('paths', SAMPLE, '--address', address, '--max', '3', '--format', 'json'));
    expect(byAddr.paths[0].steps.at(-1)!.address).toBe(address);
    const byType = await ok<TypePathsJson>('paths_to_roots', { snapshot: id, type: 'ReportView', depth: 32, breadth: 10 });
    expect(byType).toEqual(await cliJson('paths', SAMPLE, '--type', 'ReportView', '--format', 'json'));
    expect([byType.type, byType.instances, byType.reachable]).toEqual(['SampleShop.ReportView', 150, 150]);

    const closed = await ok('close_snapshot', { snapshot: id });
    expect(closed).toEqual({ closed: id, file: 'sample.gcdump', openSnapshots: [] });
    const gone = await call('summary', { snapshot: id });
    expect([gone.isError, gone.json.error.code]).toEqual([true, 'session/not-found']);
  }, 120_000);

  it('bad input comes back as coded tool errors, and the server keeps serving', async () => {
    const missing = await call('open_snapshot', { path: join(dir, 'no-such.gcdump') });
    expect([missing.isError, missing.json.error.code]).toEqual([true, 'io/not-found']);
    const junk = join(dir, 'junk.gcdump');
    writeFileSync(junk, 'this is not a heap snapshot\n'.repeat(10));
    const bad = await call('open_snapshot', { path: junk });
    expect([bad.isError, bad.json.error.code]).toEqual([true, 'format/unknown']);
    const cut = join(dir, 'cut.gcdump');
    writeFileSync(cut, readFileSync(SAMPLE).subarray(0, 300_000));
    const truncated = await call('open_snapshot', { path: cut });
    expect([truncated.isError, truncated.json.error.code, truncated.json.error.detail]).toEqual([true, 'format/corrupt', { offset: 27_757 }]);
    const folder = await call('open_snapshot', { path: dir });
    expect(folder.json.error).toEqual({ code: 'io/not-a-file', message: `${dir} is a directory, not a snapshot file` });
    const s = (await ok<OpenJson>('open_snapshot', { path: SAMPLE })).snapshot;
    const both = await call('paths_to_roots', { snapshot: s, type: 'ReportView', address: '0x10' });
    expect([both.isError, both.json.error.code]).toEqual([true, 'usage/bad-argument']);
    const ambiguous = await call('paths_to_roots', { snapshot: s, type: 'SampleShop' });
    expect([ambiguous.isError, ambiguous.json.error.code]).toEqual([true, 'usage/bad-argument']);
    const nowhere = await call('paths_to_roots', { snapshot: s, address: '0x1' });
    expect([nowhere.isError, nowhere.json.error.code]).toEqual([true, 'usage/bad-argument']);
    const noNode = await call('dominators', { snapshot: s, node: 1e9 });
    expect([noNode.isError, noNode.json.error.code]).toEqual([true, 'usage/bad-argument']);
    await ok('close_snapshot', { snapshot: s });
  }, 60_000);

  it.skipIf(!android1 || !android2)('diff of two open snapshots = heapscope diff; a third open is mcp/too-many-snapshots', async () => {
    const a = (await ok<OpenJson>('open_snapshot', { path: android1 })).snapshot;
    const b = (await ok<OpenJson>('open_snapshot', { path: android2 })).snapshot;
    const third = await call('open_snapshot', { path: SAMPLE });
    expect([third.isError, third.json.error.code, third.json.error.detail]).toEqual([true, 'mcp/too-many-snapshots', { open: 2, limit: 2 }]);
    const cli = await cliJson<DiffJson>('diff', android1!, android2!, '--format', 'json');
    const page = await ok<DiffJson & PageJson<unknown>>('diff', { base: a, new: b, limit: 500 });
    expect({ base: page.base, new: page.new, total: page.total, added: page.added, removed: page.removed }).toEqual({ base: cli.base, new: cli.new, total: cli.total, added: cli.added, removed: cli.removed });
    expect(page.rows).toEqual(cli.rows.slice(0, 500));
    expect(page.totalRows).toBe(cli.rows.length);
    // growth suspects need the baseline: the same as inspect NEW --baseline BASE
    const grown = await ok<InspectionsJson>('inspections', { snapshot: b, baseline: a });
    const grownCli = await cliJson<InspectionsJson>('inspect', android2!, '--baseline', android1!, '--top', '5', '--format', 'json');
    expect({ ...grown, snapshot: undefined }).toEqual({ ...grownCli, snapshot: undefined });
    expect(grown.findings.some((f) => f.kind === 'growth-type')).toBe(true);
    // suspects with the baseline = suspects NEW --baseline BASE --format json
    const report = await ok<SuspectsJson>('suspects', { snapshot: b, baseline: a });
    expect(report).toEqual({ snapshot: b, ...(await cliJson('suspects', android2!, '--baseline', android1!, '--format', 'json')) });
    expect(report.growth).not.toBeNull();
    await ok('close_snapshot', { snapshot: a });
    await ok('close_snapshot', { snapshot: b });
  }, 120_000);
  if (!android1) it.skip(NO_FIXTURES, () => {});

  it('logs go to stderr only', () => {
    expect(serverLog).toContain('heapscope mcp: ready (at most 2 snapshots open)');
  });
});

describe('heapscope mcp process life', () => {
  it('writes nothing but protocol messages to stdout and exits 0 when the client closes stdin', async () => {
    const child = spawn(process.execPath, [bin, 'mcp'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
    child.stdin.write(JSON.stringify(init) + '\n');
    await expect.poll(() => out.includes('\n'), { timeout: 30_000 }).toBe(true);
    const exited = new Promise<[number | null, string | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])));
    child.stdin.end();
    expect(await exited).toEqual([0, null]);
    const lines = out.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'heapscope' } } });
  }, 60_000);

  it('raw JSON-RPC: a ping is answered during a big open, a cancelled open leaves nothing open, and the server exits 0 with its threads', async () => {
    const big = join(dir, 'big.gcdump');
    generateGcdump({ objects: 1_000_000, out: big, seed: 3 });
    const child = spawn(process.execPath, [bin, 'mcp', '--max-open', '1'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const seen: { id?: number; method?: string; params?: { message?: string }; result?: { content?: { text: string }[] } }[] = [];
    let buffered = '';
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        seen.push(JSON.parse(buffered.slice(0, nl)));
        buffered = buffered.slice(nl + 1);
      }
    });
    const send = (m: object) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
    const answered = (id: number) => seen.findIndex((m) => m.id === id);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    await expect.poll(() => answered(1), { timeout: 30_000 }).toBeGreaterThanOrEqual(0);
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'open_snapshot', arguments: { path: big }, _meta: { progressToken: 'p' } } });
    const inDominators = () => seen.some((m) => m.method === 'notifications/progress' && m.params?.message?.startsWith('dominators'));
    await expect.poll(inDominators, { timeout: 120_000 }).toBe(true);
    send({ id: 3, method: 'ping' });
    await expect.poll(() => answered(3), { timeout: 30_000 }).toBeGreaterThanOrEqual(0);
    expect(answered(2)).toBe(-1); // the open is still running
    send({ method: 'notifications/cancelled', params: { requestId: 2, reason: 'test' } });
    send({ id: 4, method: 'tools/call', params: { name: 'open_snapshot', arguments: { path: SAMPLE } } });
    await expect.poll(() => answered(4), { timeout: 60_000 }).toBeGreaterThanOrEqual(0);
    const opened = JSON.parse(seen[answered(4)].result!.content![0].text) as OpenJson;
    // the one slot was free again, the cancelled open got no id, and it is never answered (MCP: no reply to a cancelled request)
    expect([opened.snapshot, opened.openSnapshots]).toEqual(['s1', ['s1']]);
    const exited = new Promise<[number | null, string | null]>((resolve) => child.on('exit', (code, signal) => resolve([code, signal])));
    child.stdin.end();
    expect(await exited).toEqual([0, null]);
    expect(answered(2)).toBe(-1);
    expect(err).not.toMatch(/lost its worker|Error|at .*:\d+:\d+/);
  }, 300_000);

  it('the SDK client closing ends the server (no orphan)', async () => {
    const t = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], env, stderr: 'ignore' });
    const c = new Client({ name: 'heapscope-test', version: '1.0.0' });
    await c.connect(t);
    const pid = t.pid!;
    expect(pid).toBeGreaterThan(0);
    await c.close();
    expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});

/**
 * `npm run build:cli` output (npm test builds it before vitest): the MCP server runs from the
 * bundle too, and the SDK sits only in a chunk loaded on demand, so other commands never parse it.
 * Skipped visibly when no bundle is built or it is older than the MCP sources (a stale bundle
 * would test old code).
 */
const outCli = join(__dirname, '../../out/cli');
const entry = join(outCli, 'heapscope.mjs');
const mcpSources = join(__dirname, '../../electron/cli/mcp');
const bundleAge = existsSync(entry) ? statSync(entry).mtimeMs : 0;
const freshBundle = bundleAge > 0 && readdirSync(mcpSources).every((f) => statSync(join(mcpSources, f)).mtimeMs <= bundleAge);
const NO_BUNDLE = 'no fresh CLI bundle in out/cli (npm run build:cli): skipped';

describe('heapscope mcp from the CLI bundle', () => {
  it.skipIf(!freshBundle)('serves from out/cli, with the SDK only in a chunk the other commands do not import', async () => {
    // what `heapscope --help` loads: the entry and the chunks it imports statically, transitively
    const staticChunks: string[] = [];
    const eagerFiles = ['heapscope.mjs'];
    for (let i = 0; i < eagerFiles.length; i++) {
      for (const m of readFileSync(join(outCli, eagerFiles[i]), 'utf8').matchAll(/(?:from|^import) "\.\/([\w-]+\.mjs)"/gm)) {
        if (eagerFiles.includes(m[1])) continue;
        eagerFiles.push(m[1]);
        staticChunks.push(m[1]);
      }
    }
    const eager = eagerFiles.map((f) => readFileSync(join(outCli, f), 'utf8')).join('\n');
    expect(eager).not.toContain('StdioServerTransport');
    const lazy = readdirSync(outCli).filter((f) => f.endsWith('.mjs') && readFileSync(join(outCli, f), 'utf8').includes('StdioServerTransport'));
    expect(lazy).toHaveLength(1);
    expect(staticChunks).not.toContain(lazy[0]);

    const bundledEnv = { ...env };
    delete bundledEnv.HEAPSCOPE_FROM_SOURCE;
    const t = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], env: bundledEnv, stderr: 'ignore' });
    const c = new Client({ name: 'heapscope-test', version: '1.0.0' });
    await c.connect(t);
    try {
      const r = (await c.callTool({ name: 'open_snapshot', arguments: { path: SAMPLE } })) as { content: { text: string }[] };
      const info = await cliJson('info', SAMPLE, '--format', 'json');
      expect(JSON.parse(r.content[0].text)).toMatchObject({ snapshot: 's1', objectCount: info.objectCount, totalSize: info.totalSize });
    } finally {
      await c.close();
    }
  }, 60_000);
  if (!freshBundle) it.skip(NO_BUNDLE, () => {});
});
