import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors.js';
import { CancellationSource } from '../../../../shared/util/cancellation.js';
import { liveHelpers, readDumpFile } from '../../../../electron/dump-reader/helper-process.js';
import { DumpStreamWriter } from '../../../helpers/dump-stream-writer.js';

/**
 * The Node side of the dump helper, with stand-in helpers: small Node scripts run in place of
 * `dotnet heapscope-dump-reader.dll`, so a crash, a kill and a hang are exact and fast.
 */
const dir = mkdtempSync(join(tmpdir(), 'heapscope-dump-helper-'));

/** A script that writes `bytes` to stdout, then does `then`. */
function fakeHelper(name: string, bytes: Uint8Array, then: string): string {
  const file = join(dir, `${name}.cjs`);
  writeFileSync(file, `process.stdout.write(Buffer.from('${Buffer.from(bytes).toString('base64')}', 'base64'), () => { ${then} });\n`);
  return file;
}

function goodStream(): Uint8Array {
  const w = new DumpStreamWriter();
  w.info('pointerSize', '8').type(0, 'Foo').object(0x1000, 0, 24, 0, [[0x1018, 'next']]).object(0x1018, 0, 24, 0).root(1, 'App', 'Root', 0x1000);
  return w.end().finish();
}

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  if (!(e instanceof AppError)) throw new Error(`expected an AppError, got ${String(e)}`);
  return e;
}

const waitForNoHelpers = async (): Promise<number> => {
  for (let i = 0; i < 50 && liveHelpers() > 0; i++) await new Promise((r) => setTimeout(r, 20));
  return liveHelpers();
};

afterEach(async () => {
  expect(await waitForNoHelpers()).toBe(0);
});

describe('dump helper process', () => {
  it('reads the stream of a helper that exits normally', async () => {
    const helper = fakeHelper('good', goodStream(), 'process.exit(0)');
    const g = await readDumpFile('/x/app.dmp', 'app.dmp', { helper, dotnet: process.execPath });
    expect(g.nodeCount).toBe(5); // 2 objects, [.NET Roots], [static vars], [static var App.Root]
    expect(g.edgeCount).toBe(4);
  });

  it('a helper that dies mid-stream is dump/helper-crashed, naming how it ended', async () => {
    const cut = goodStream().subarray(0, 40);
    const crashed = await errorOf(readDumpFile('/x/app.dmp', 'app.dmp', { helper: fakeHelper('crash', cut, "process.stderr.write('Segmentation fault'); process.exit(139)"), dotnet: process.execPath }));
    expect(crashed.code).toBe('dump/helper-crashed');
    expect(crashed.message).toContain('exited with code 139');
    expect(crashed.message).toContain('Segmentation fault');
    const killed = await errorOf(readDumpFile('/x/app.dmp', 'app.dmp', { helper: fakeHelper('killed', cut, "process.kill(process.pid, 'SIGKILL')"), dotnet: process.execPath }));
    expect(killed.code).toBe('dump/helper-crashed');
    expect(killed.message).toContain('SIGKILL');
  });

  it('cancelling a read of a hanging helper kills it (no orphan process)', async () => {
    const hang = fakeHelper('hang', new DumpStreamWriter().finish(), 'setInterval(() => {}, 1000)');
    const cancel = new CancellationSource();
    const p = readDumpFile('/x/app.dmp', 'app.dmp', { helper: hang, dotnet: process.execPath, token: cancel.token });
    await new Promise((r) => setTimeout(r, 300));
    expect(liveHelpers()).toBe(1);
    cancel.cancel();
    expect((await errorOf(p)).code).toBe('cancelled');
    expect(await waitForNoHelpers()).toBe(0);
  });

  it('a helper that writes garbage after a good start is killed once the decoder gives up', async () => {
    const bad = new DumpStreamWriter().u8(0x55).finish();
    const e = await errorOf(readDumpFile('/x/app.dmp', 'app.dmp', { helper: fakeHelper('garbage', bad, 'setInterval(() => {}, 1000)'), dotnet: process.execPath }));
    expect(e.code).toBe('format/corrupt');
  });

  it('a missing helper or runtime is dump/helper-missing with the build command', async () => {
    const missing = await errorOf(readDumpFile('/x/app.dmp', 'app.dmp', { helper: join(dir, 'nope.dll') }));
    expect(missing.code).toBe('dump/helper-missing');
    expect(missing.message).toContain('npm run build:dump-reader');
    const noDotnet = await errorOf(readDumpFile('/x/app.dmp', 'app.dmp', { helper: fakeHelper('x', goodStream(), ''), dotnet: join(dir, 'no-such-dotnet') }));
    expect(noDotnet.code).toBe('dump/helper-missing');
  });
});
