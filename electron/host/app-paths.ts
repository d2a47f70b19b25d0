import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The app version shown in About and appInfo (kept equal to package.json "version"). */
export const APP_VERSION = '0.1.0';

/**
 * Config directory for browser mode and the CLI: $HEAPSCOPE_CONFIG_DIR, else the platform's
 * per-user config place. (Electron uses app.getPath('userData') instead.)
 */
export function defaultConfigDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.HEAPSCOPE_CONFIG_DIR) return env.HEAPSCOPE_CONFIG_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Heapscope');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Heapscope');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'heapscope');
}

/**
 * The built renderer (out/renderer/index.html): from sources (electron/<x>/ → ../../out/renderer)
 * or from a bundle (out/<x>/ → ../renderer). Null when it has not been built.
 */
export function locateRenderer(callerUrl: string = import.meta.url): string | null {
  const url = new URL(callerUrl);
  url.search = '';
  url.hash = '';
  const here = dirname(fileURLToPath(url));
  // Built layout: out/main (or out/cli) beside out/renderer.
  const sibling = join(here, '..', 'renderer');
  if (existsSync(join(sibling, 'index.html'))) return sibling;
  // From sources (electron/cli/commands, electron/main, …): the repo's out/renderer, a few levels up.
  let dir = here;
  for (let i = 0; i < 5; i++) {
    const c = join(dir, 'out', 'renderer');
    if (existsSync(join(c, 'index.html'))) return c;
    dir = dirname(dir);
  }
  return null;
}
