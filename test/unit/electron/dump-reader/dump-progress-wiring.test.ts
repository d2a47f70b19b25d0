import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readDumpFile } from '../../../../electron/dump-reader/helper-process.js';
import '../../../../electron/dump-reader/register-dump-reader.js';
import { FileByteSource } from '../../../../electron/files/file-byte-source.js';
import { readSnapshot } from '../../../../shared/formats/read-snapshot.js';
import { DumpStreamWriter } from '../../../helpers/dump-stream-writer.js';

/**
 * The helper's PROGRESS records reach the load progress of the app: readDumpFile's `progress`
 * option, and readSnapshot's (which the snapshot worker turns into `load-progress` events, as for
 * every other format) through the registered dump reader.
 */
const dir = mkdtempSync(join(tmpdir(), 'heapscope-dump-progress-'));
const savedEnv = process.env.HEAPSCOPE_DUMP_READER;

function stream(): Uint8Array {
  const w = new DumpStreamWriter();
  w.info('pointerSize', '8').type(0, 'Foo').progress(0, 1000).object(0x1000, 0, 24, 0, [[0x1018, 'next']]);
  w.progress(600, 1000).object(0x1018, 0, 24, 0).progress(1000, 1000).root(1, 'App', 'Root', 0x1000);
  return w.end().finish();
}

/** An executable stand-in helper (shebang: this Node) writing stream(). */
function helper(): string {
  const path = join(dir, 'helper');
  writeFileSync(path, `#!${process.execPath}\nprocess.stdout.write(Buffer.from('${Buffer.from(stream()).toString('base64')}', 'base64'), () => process.exit(0));\n`, { mode: 0o755 });
  return path;
}

afterEach(() => {
  if (savedEnv === undefined) delete process.env.HEAPSCOPE_DUMP_READER;
  else process.env.HEAPSCOPE_DUMP_READER = savedEnv;
});

describe.skipIf(process.platform === 'win32')('dump load progress', () => {
  it('readDumpFile passes PROGRESS records to its progress option', async () => {
    const calls: [string, number, number][] = [];
    const g = await readDumpFile('/x/app.dmp', 'app.dmp', { helper: helper(), progress: (p, d, t) => calls.push([p, d, t]) });
    expect(g.nodeCount).toBe(5);
    expect(calls).toEqual([
      ['parse', 0, 1000],
      ['parse', 600, 1000],
      ['parse', 1000, 1000],
    ]);
  });

  it('readSnapshot of a core file (detected by content) reports the helper\'s progress', async () => {
    process.env.HEAPSCOPE_DUMP_READER = helper();
    const core = join(dir, 'core.4242');
    const h = new Uint8Array(64);
    h.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
    h[16] = 4; // ET_CORE
    writeFileSync(core, h);
    const source = await FileByteSource.open(core);
    const done: number[] = [];
    try {
      const g = await readSnapshot(source, { progress: (p, d, t) => p === 'parse' && t === 1000 && done.push(d) });
      expect(g.metadata.format).toBe('dump');
    } finally {
      await source.close();
    }
    expect(done).toEqual([0, 600, 1000]);
  });
});
