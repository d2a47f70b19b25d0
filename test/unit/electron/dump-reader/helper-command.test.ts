import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../../shared/errors.js';
import { DUMP_HELPER_EXE, findDumpHelper, helperCommand, liveHelpers, readDumpFile } from '../../../../electron/dump-reader/helper-process.js';
import { DumpStreamWriter } from '../../../helpers/dump-stream-writer.js';

/**
 * Which helper runs: $HEAPSCOPE_DUMP_READER, then the installed app's resources/dump-reader/
 * executable (self-contained, no `dotnet`), then the dev build's .dll through `dotnet`. The
 * stand-in helpers are executable Node scripts, so "runs without dotnet" is real.
 */
const dir = mkdtempSync(join(tmpdir(), 'heapscope-helper-command-'));
const savedEnv = process.env.HEAPSCOPE_DUMP_READER;
const proc = process as { resourcesPath?: string };

function stream(): Uint8Array {
  const w = new DumpStreamWriter();
  w.info('pointerSize', '8').type(0, 'Foo').object(0x1000, 0, 24, 0, [[0x1018, 'next']]).object(0x1018, 0, 24, 0).root(1, 'App', 'Root', 0x1000);
  return w.end().finish();
}

/** An executable script (shebang: this Node) that writes a good stream and records its arguments. */
function executableHelper(path: string): string {
  writeFileSync(
    path,
    `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(path + '.args')}, JSON.stringify(process.argv.slice(2)));\n` +
      `process.stdout.write(Buffer.from('${Buffer.from(stream()).toString('base64')}', 'base64'), () => process.exit(0));\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

afterEach(() => {
  if (savedEnv === undefined) delete process.env.HEAPSCOPE_DUMP_READER;
  else process.env.HEAPSCOPE_DUMP_READER = savedEnv;
  delete proc.resourcesPath;
});

describe.skipIf(process.platform === 'win32')('dump helper resolution', () => {
  it('$HEAPSCOPE_DUMP_READER: a .dll runs through dotnet, an executable runs itself, a missing path is no helper', () => {
    const dll = join(dir, 'heapscope-dump-reader.dll');
    writeFileSync(dll, '');
    process.env.HEAPSCOPE_DUMP_READER = dll;
    expect(helperCommand()).toEqual({ command: 'dotnet', args: [dll], source: 'env' });
    expect(findDumpHelper()).toBe(dll);
    const exe = executableHelper(join(dir, 'env-helper'));
    process.env.HEAPSCOPE_DUMP_READER = exe;
    expect(helperCommand()).toEqual({ command: exe, args: [], source: 'env' });
    expect(findDumpHelper()).toBe(exe);
    process.env.HEAPSCOPE_DUMP_READER = join(dir, 'nope');
    expect(helperCommand()).toBeNull();
  });

  it('reads a dump through a self-contained executable named by $HEAPSCOPE_DUMP_READER, without dotnet', async () => {
    const exe = executableHelper(join(dir, 'sc-helper'));
    process.env.HEAPSCOPE_DUMP_READER = exe;
    const g = await readDumpFile('/x/app.dmp', 'app.dmp');
    expect(g.nodeCount).toBe(5);
    expect(g.edgeCount).toBe(4);
    expect(JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(exe + '.args', 'utf8')))).toEqual(['/x/app.dmp']);
    expect(liveHelpers()).toBe(0);
  });

  it('the installed app: resources/dump-reader/<executable> comes before the dev build', async () => {
    delete process.env.HEAPSCOPE_DUMP_READER;
    const resources = join(dir, 'resources');
    mkdirSync(join(resources, 'dump-reader'), { recursive: true });
    const exe = executableHelper(join(resources, 'dump-reader', DUMP_HELPER_EXE));
    proc.resourcesPath = resources;
    expect(helperCommand()).toEqual({ command: exe, args: [], source: 'packaged' });
    const g = await readDumpFile('/x/core.123', 'core.123');
    expect(g.nodeCount).toBe(5);
    // Resources without a helper fall through to the dev build (or none).
    proc.resourcesPath = join(dir, 'empty-resources');
    const dev = helperCommand();
    if (dev) expect(dev).toMatchObject({ command: 'dotnet', source: 'dev' });
    if (dev) expect(dev.args[0]).toMatch(/[\\/]out[\\/]dump-reader[\\/]heapscope-dump-reader\.dll$/);
  });

  it('a $HEAPSCOPE_DUMP_READER that does not exist is dump/helper-missing naming the setting', async () => {
    process.env.HEAPSCOPE_DUMP_READER = join(dir, 'missing-helper');
    const e = await readDumpFile('/x/app.dmp', 'app.dmp').then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe('dump/helper-missing');
    expect((e as AppError).message).toContain('HEAPSCOPE_DUMP_READER names');
  });
});
