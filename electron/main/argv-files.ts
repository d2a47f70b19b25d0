import { isAbsolute, resolve } from 'node:path';

/**
 * Which arguments of an Electron command line are files to open as tabs. No electron import, so
 * the rules are unit-tested under Node (main.ts uses them for its own argv and for the argv a
 * second instance hands over).
 *
 * - The leading arguments are the executable, plus the app's directory or main script when
 *   Electron runs unpackaged (`electron . FILE`, `electron out/main/main.js FILE`).
 * - Flags are skipped: ours (`--open-sample`), Chromium's switches that Electron may add or
 *   reorder in a second instance's argv, macOS's `-psn_…` process serial number.
 *   After `--` everything is a file, so a file named `-x.gcdump` can still be opened.
 * - A relative path is resolved against the directory of the process that received it: for a
 *   second instance that is ITS working directory (Electron's `workingDirectory` argument),
 *   not ours, or `heapscope ./a.gcdump` from another shell would look in the wrong place.
 * - A path named twice is opened once.
 */
export interface ArgvOptions {
  /** app.isPackaged: argv[0] is the app itself; unpackaged, argv[1] is the app dir or script. */
  packaged: boolean;
  /** Working directory of the process whose argv this is. */
  cwd: string;
}

export function filesFromArgv(argv: readonly string[], o: ArgvOptions): string[] {
  const out: string[] = [];
  let rest = argv.slice(o.packaged ? 1 : 2);
  // `electron --inspect . FILE`: Electron's own flags may precede the app dir when unpackaged
  if (!o.packaged && argv.length > 1 && argv[1].startsWith('-')) {
    const app = argv.findIndex((a, i) => i > 0 && !a.startsWith('-'));
    rest = app < 0 ? [] : argv.slice(app + 1);
  }
  let filesOnly = false;
  for (const a of rest) {
    if (!filesOnly && a === '--') {
      filesOnly = true;
      continue;
    }
    if (a === '' || (!filesOnly && a.startsWith('-'))) continue;
    const abs = isAbsolute(a) ? resolve(a) : resolve(o.cwd, a);
    if (!out.includes(abs)) out.push(abs);
  }
  return out;
}
