import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Path of a usable Electron executable, or null — by looking at files only.
 *
 * Never `require('electron')` to find out: since electron 42 its index.js tries to DOWNLOAD the
 * binary when it is missing (and throws offline), TOOLCHAIN §3. Same rule as electron-vite:
 * $ELECTRON_EXEC_PATH, else node_modules/electron/path.txt naming a file under dist/ (or under
 * $ELECTRON_OVERRIDE_DIST_PATH).
 */
export function electronBinary(root: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.ELECTRON_EXEC_PATH) return existsSync(env.ELECTRON_EXEC_PATH) ? env.ELECTRON_EXEC_PATH : null;
  const pkg = join(root, 'node_modules', 'electron');
  const pathTxt = join(pkg, 'path.txt');
  if (!existsSync(pathTxt)) return null;
  const bin = join(env.ELECTRON_OVERRIDE_DIST_PATH ?? join(pkg, 'dist'), readFileSync(pathTxt, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}
