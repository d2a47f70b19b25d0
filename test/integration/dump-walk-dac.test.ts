import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findDumpHelper } from '../../electron/dump-reader/helper-process.js';
import { decodeDumpStream, RootKind, type DumpRecords } from '../../shared/formats/dump/dump-stream.js';
import type { DumpRuntimeInfo, DumpThread } from '../../shared/formats/dump/dump-queries.js';
import { MemoryByteSource } from '../../shared/util/byte-source.js';
import { runCliJson as json } from '../helpers/capture-io.js';
import { useContentsDump } from '../helpers/contents-dump-suite.js';
import { DUMP_CONTENTS_SKIP } from '../helpers/dump-contents.js';

/**
 * The heap walk's DAC: the same choice as the queries (DacChoice.cs, local files only), reported in
 * the stream's INFO; no network connection while a dump is walked or queried (every HTTP(S) request
 * of the helper goes through a proxy we run, which counts connections); the stack roots' thread
 * labels carry the managed thread name (DumpContentsApp names its threads "parked" and "catcher").
 */
const helper = findDumpHelper();
const RUNTIME_DIR = '/usr/share/dotnet/shared/Microsoft.NETCore.App/';

/** A "proxy" that counts connections and answers none: a helper that tried a download would connect here. */
async function countingProxy(): Promise<{ server: Server; port: number; connections: () => number }> {
  let n = 0;
  const server = createServer((c) => {
    n++;
    c.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return { server, port, connections: () => n };
}

function runHelper(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: Buffer }> {
  const dll = helper!.endsWith('.dll');
  const child = spawn(dll ? 'dotnet' : helper!, dll ? [helper!, ...args] : args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (b: Buffer) => chunks.push(b));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out: Buffer.concat(chunks) })));
}

async function walk(dump: string, env: Record<string, string> = {}): Promise<DumpRecords> {
  const r = await runHelper([dump], env);
  expect(r.code).toBe(0);
  return decodeDumpStream(new MemoryByteSource(new Uint8Array(r.out), 'walk.dmp'));
}

describe.skipIf(DUMP_CONTENTS_SKIP !== null)(`the heap walk's DAC and thread names on a real dump (${DUMP_CONTENTS_SKIP ?? 'dotnet and the dump reader found'})`, () => {
  const d = useContentsDump();

  it('the walk reports the DAC it loaded (INFO dacFile/dacSource/dacMatchedBy): the same file as the runtime query; no network connection', async () => {
    const proxy = await countingProxy();
    try {
      const url = `http://127.0.0.1:${proxy.port}`;
      const env = { HTTPS_PROXY: url, HTTP_PROXY: url, ALL_PROXY: url, https_proxy: url, http_proxy: url };
      const r = await walk(d.dump, env);
      const q = await runHelper(['runtime', d.dump], env);
      const runtime = (JSON.parse(q.out.toString('utf8')) as { result: DumpRuntimeInfo }).result;
      expect(runtime.dac!.file).toBe(join(runtime.runtimeModule.slice(0, runtime.runtimeModule.lastIndexOf('/')), 'libmscordaccore.so'));
      expect([r.info.dacFile, r.info.dacSource, r.info.dacMatchedBy]).toEqual([runtime.dac!.file, 'runtime-directory', 'build-id']);
      expect([runtime.dac!.source, runtime.dac!.matchedBy]).toEqual(['runtime-directory', 'build-id']);
      expect(proxy.connections()).toBe(0);
      // `heapscope info` lists them (metadata.extra) beside clrVersion.
      const info = await json<{ metadata: { extra: Record<string, string> } }>(['info', d.dump]);
      expect([info.metadata.extra.dacFile, info.metadata.extra.dacSource, info.metadata.extra.dacMatchedBy]).toEqual([runtime.dac!.file, 'runtime-directory', 'build-id']);
    } finally {
      proxy.server.close();
    }
  }, 120_000);

  it.skipIf(!existsSync(RUNTIME_DIR))('a dump whose runtime directory is not on this machine: the walk and the queries load the installed runtime of the same version (installed-runtime)', async (ctx) => {
    // Rewrite the runtime directory the dump names (same length: every offset stays valid) to one
    // that does not exist here, as for a dump written on another machine.
    const fake = '/nonexistent/heapscope/'.padEnd(RUNTIME_DIR.length - 1, 'x') + '/';
    if (fake.length !== RUNTIME_DIR.length) ctx.skip(`${RUNTIME_DIR} is too short to rewrite`);
    const bytes = readFileSync(d.dump);
    const from = Buffer.from(RUNTIME_DIR);
    let n = 0;
    for (let at = bytes.indexOf(from); at >= 0; at = bytes.indexOf(from, at + 1), n++) Buffer.from(fake).copy(bytes, at);
    expect(n).toBeGreaterThan(0);
    const moved = join(d.dir, 'elsewhere.dmp');
    writeFileSync(moved, bytes);
    const real = await json<DumpRuntimeInfo>(['runtime', d.dump]);
    const version = real.runtimeModule.slice(RUNTIME_DIR.length).split('/')[0];
    const installedDac = join(RUNTIME_DIR, version, 'libmscordaccore.so');

    const r = await walk(moved);
    expect([r.info.dacFile, r.info.dacSource, r.info.dacMatchedBy]).toEqual([installedDac, 'installed-runtime', 'build-id']);
    const q = await json<DumpRuntimeInfo>(['runtime', moved]);
    expect(q.runtimeModule).toBe(join(fake, version, 'libcoreclr.so'));
    expect(q.dac).toMatchObject({ file: installedDac, source: 'installed-runtime', candidate: -1, matchedBy: 'build-id' });
    // The same objects as the walk of the original dump.
    const original = await walk(d.dump);
    expect(r.objectCount).toBe(original.objectCount);
  }, 180_000);

  it('stack roots are labelled with the managed thread name where the thread has one', async () => {
    const r = await walk(d.dump);
    const { threads } = await json<{ threads: DumpThread[] }>(['threads', d.dump]);
    const groups = new Set<string>();
    for (let i = 0; i < r.rootKind.length; i++) if (r.rootKind[i] === RootKind.Stack) groups.add(r.strings.get(r.rootGroup[i]));
    // The name inside the quotes is escaped JSON-style (JSON.stringify without its outer quotes).
    const label = (t: DumpThread) => `[thread ${t.managedThreadId}${t.name ? ` ${JSON.stringify(t.name)}` : ''} (OS 0x${t.osThreadId.toString(16)})]`;
    const parked = threads.find((t) => t.name === 'parked')!;
    const catcher = threads.find((t) => t.name === 'catcher')!;
    const main = threads.find((t) => t.managedThreadId === 1)!;
    expect(main.name).toBeNull();
    expect(groups).toContain(`[thread ${parked.managedThreadId} "parked" (OS 0x${parked.osThreadId.toString(16)})]`);
    expect(groups).toContain(`[thread ${catcher.managedThreadId} "catcher" (OS 0x${catcher.osThreadId.toString(16)})]`);
    expect(groups).toContain(`[thread 1 (OS 0x${main.osThreadId.toString(16)})]`);
    // A name with a quote, a backslash, a newline and a tab: raw in the threads query, escaped in the label.
    const odd = threads.find((t) => t.frames.some((f) => f.method?.startsWith('HeapscopeTest.ParkedWorker.WaitNamed(')))!;
    expect(odd.name).toBe('say "hi" \\ then\nbye\t!');
    expect(groups).toContain(`[thread ${odd.managedThreadId} "say \\"hi\\" \\\\ then\\nbye\\t!" (OS 0x${odd.osThreadId.toString(16)})]`);
    // Every stack-root group is one thread's label as the threads query names it.
    const expected = new Set(threads.map(label));
    expect([...groups].filter((g) => !expected.has(g))).toEqual([]);
  }, 120_000);
});
