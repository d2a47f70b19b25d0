import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors.js';
import { DumpQueryClient, queryDumpOnce } from '../../../../electron/dump-reader/dump-query-client.js';
import { liveHelpers } from '../../../../electron/dump-reader/helper-process.js';

/**
 * The serve-mode client with stand-in helpers: Node scripts run in place of `dotnet
 * heapscope-dump-reader.dll serve DUMP`, speaking its line protocol, so a crash, a hang, an open
 * error and a close are exact and fast, and the processes are real (orphans would show).
 */
const dir = mkdtempSync(join(tmpdir(), 'heapscope-dump-query-'));

/**
 * A stand-in server. Requests for address "0xdead" crash it (exit 3), "0xhang" get no answer,
 * "0xmissing" get object/not-found; every other request is answered with {echo: request, pid}.
 * `opening` replaces the ready line (an open error).
 */
function fakeServer(name: string, opening = '{"ready":true}'): string {
  const file = join(dir, `${name}.cjs`);
  writeFileSync(
    file,
    `process.stdout.write(${JSON.stringify(opening + '\n')});
if (!${JSON.stringify(opening)}.includes('"ready":true')) process.exit(2);
let buf = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (c) => {
  buf += c;
  for (let nl = buf.indexOf('\\n'); nl >= 0; nl = buf.indexOf('\\n')) {
    const req = JSON.parse(buf.slice(0, nl));
    buf = buf.slice(nl + 1);
    if (req.address === '0xdead') { process.stderr.write('boom in the DAC\\n'); process.exit(3); }
    if (req.address === '0xhang') continue;
    if (req.address === '0xmissing') { process.stdout.write(JSON.stringify({ id: req.id, ok: false, error: { code: 'object/not-found', message: 'no object at 0xmissing' } }) + '\\n'); continue; }
    process.stdout.write(JSON.stringify({ id: req.id, ok: true, result: { echo: req, pid: process.pid } }) + '\\n');
  }
});
process.stdin.on('end', () => process.exit(0));
`,
  );
  return file;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  if (!(e instanceof AppError)) throw new Error(`expected an AppError, got ${String(e)}`);
  return e;
}

const clients: DumpQueryClient[] = [];
function client(script: string, timeoutMs?: number): DumpQueryClient {
  const c = new DumpQueryClient('/x/app.dmp', 'app.dmp', { helper: script, dotnet: process.execPath, timeoutMs });
  clients.push(c);
  return c;
}

afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  expect(liveHelpers()).toBe(0);
});

interface Echo {
  echo: { id: number; query: string; address?: string };
  pid: number;
}

describe('DumpQueryClient (serve mode)', () => {
  it('answers many queries from one helper process, matched by id, and close() leaves no process', async () => {
    const c = client(fakeServer('ok'));
    const answers = (await Promise.all([c.query({ query: 'object', address: '0x10' }), c.query({ query: 'object', address: '0x20' }), c.query({ query: 'runtime' })])) as unknown as Echo[];
    expect(answers.map((a) => [a.echo.id, a.echo.query, a.echo.address ?? null])).toEqual([
      [1, 'object', '0x10'],
      [2, 'object', '0x20'],
      [3, 'runtime', null],
    ]);
    expect(new Set(answers.map((a) => a.pid)).size).toBe(1);
    expect(liveHelpers()).toBe(1);
    await c.close();
    expect(alive(answers[0].pid)).toBe(false);
    expect(liveHelpers()).toBe(0);
    expect((await errorOf(c.query({ query: 'runtime' }))).code).toBe('dump/helper-crashed');
  });

  it('a coded failure of one request keeps the helper running', async () => {
    const c = client(fakeServer('coded'));
    const first = (await c.query({ query: 'object', address: '0x10' })) as unknown as Echo;
    const e = await errorOf(c.query({ query: 'object', address: '0xmissing' }));
    expect([e.code, e.message]).toEqual(['object/not-found', 'no object at 0xmissing']);
    const again = (await c.query({ query: 'object', address: '0x30' })) as unknown as Echo;
    expect(again.pid).toBe(first.pid);
  });

  it('a helper that crashes fails the request with dump/helper-crashed (with its stderr) and the next query starts a new one', async () => {
    const c = client(fakeServer('crash'));
    const before = (await c.query({ query: 'object', address: '0x10' })) as unknown as Echo;
    const e = await errorOf(c.query({ query: 'object', address: '0xdead' }));
    expect(e.code).toBe('dump/helper-crashed');
    expect(e.message).toBe('the dump reader exited with code 3 while answering queries on app.dmp: boom in the DAC');
    expect(alive(before.pid)).toBe(false);
    const after = (await c.query({ query: 'object', address: '0x20' })) as unknown as Echo;
    expect(after.pid).not.toBe(before.pid);
    expect(after.echo.address).toBe('0x20');
  });

  it('a helper that cannot open the dump gives its coded error for every query, without starting again', async () => {
    const c = client(fakeServer('no-dac', '{"ready":false,"error":{"code":"dump/dac-missing","message":"cannot load libmscordaccore.so","detail":"libmscordaccore.so"}}'));
    const e1 = await errorOf(c.query({ query: 'runtime' }));
    expect([e1.code, e1.message, e1.detail]).toEqual(['dump/dac-missing', 'cannot load libmscordaccore.so', { file: 'libmscordaccore.so' }]);
    for (let i = 0; i < 50 && liveHelpers() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(liveHelpers()).toBe(0);
    const e2 = await errorOf(c.query({ query: 'threads' }));
    expect(e2).toBe(e1);
    expect(liveHelpers()).toBe(0);
  });

  it('a request without an answer kills the hung helper after the timeout (dump/helper-crashed)', async () => {
    const c = client(fakeServer('hang'), 300);
    const first = (await c.query({ query: 'object', address: '0x10' })) as unknown as Echo;
    const e = await errorOf(c.query({ query: 'object', address: '0xhang' }));
    expect(e.code).toBe('dump/helper-crashed');
    expect(e.message).toBe('the dump reader did not answer a object query within 0.3 s and was stopped');
    for (let i = 0; i < 50 && alive(first.pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive(first.pid)).toBe(false);
  });

  it('closing while a request waits fails it and leaves no process', async () => {
    const c = client(fakeServer('close'));
    const first = (await c.query({ query: 'object', address: '0x10' })) as unknown as Echo;
    const waiting = errorOf(c.query({ query: 'object', address: '0xhang' }));
    await c.query({ query: 'object', address: '0x11' }); // answered after the hung one was read: it is in flight
    await c.close();
    const e = await waiting;
    expect([e.code, e.message]).toEqual(['dump/helper-crashed', 'the dump reader for app.dmp was closed']);
    expect(alive(first.pid)).toBe(false);
  });

  it('queryDumpOnce starts, asks and stops; a missing helper is dump/helper-missing', async () => {
    const a = (await queryDumpOnce('/x/app.dmp', 'app.dmp', { query: 'threads' }, { helper: fakeServer('once'), dotnet: process.execPath })) as unknown as Echo;
    expect(a.echo.query).toBe('threads');
    expect(alive(a.pid)).toBe(false);
    const e = await errorOf(queryDumpOnce('/x/app.dmp', 'app.dmp', { query: 'threads' }, { helper: join(dir, 'absent.dll') }));
    expect(e.code).toBe('dump/helper-missing');
  });
});
