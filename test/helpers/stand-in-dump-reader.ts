import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DumpStreamWriter } from './dump-stream-writer.js';

/**
 * A stand-in for the dump reader ($HEAPSCOPE_DUMP_READER) that writes three types and their
 * TYPE_HISTOGRAM, then holds the stream until the file `go` exists, then ends the walk (or, with
 * `crash`, writes a cut-off record and exits with 3). Tests of a dump's preliminary type rows use
 * it to hold the load in the window between the histogram and the graph. It records its
 * arguments in `args` and its pid in `args + '.pid'`. The final heap: Foo ×2 (64 bytes), Baz ×1
 * (100,000 bytes), Bar[] none.
 */
export function standInDumpReader(dir: string, name: string, crash: boolean): { helper: string; go: string; args: string } {
  const w = new DumpStreamWriter();
  w.info('pointerSize', '8').type(0, 'Foo', 'app.dll').type(1, 'Bar[]').type(2, 'Baz');
  w.typeHistogram([[0, 2, 64], [2, 1, 100_000]]);
  const a = w.finish().length;
  w.object(0x1000, 0, 24, 0, [[0x2000, 'next']]);
  w.object(0x2000, 0, 40, 2);
  w.object(0x3000, 2, 100_000, 3);
  w.root(1, 'App', 'Cache', 0x1000);
  const all = Buffer.from(w.end().finish());
  const parts = [all.subarray(0, a), crash ? all.subarray(a, a + 30) : all.subarray(a)].map((p) => p.toString('base64'));
  const go = join(dir, `${name}.go`);
  const args = join(dir, `${name}.args`);
  const helper = join(dir, name);
  writeFileSync(
    helper,
    `#!${process.execPath}\nconst fs = require('node:fs');\nconst parts = ${JSON.stringify(parts)};\n` +
      `fs.writeFileSync(${JSON.stringify(args)}, JSON.stringify(process.argv.slice(2)));\n` +
      `fs.writeFileSync(${JSON.stringify(args)} + '.pid', String(process.pid));\n` +
      `process.stdout.write(Buffer.from(parts[0], 'base64'));\n` +
      `const t = setInterval(() => { if (!fs.existsSync(${JSON.stringify(go)})) return; clearInterval(t);\n` +
      `  process.stdout.write(Buffer.from(parts[1], 'base64'), () => process.exit(${crash ? 3 : 0})); }, 10);\n`,
    { mode: 0o755 },
  );
  return { helper, go, args };
}

/** A 64-byte file with an ELF core header: detected as a process dump by its content. */
export function fakeCore(dir: string, name: string): string {
  const path = join(dir, name);
  const h = new Uint8Array(64);
  h.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  h[16] = 4; // ELF ET_CORE
  writeFileSync(path, h);
  return path;
}
