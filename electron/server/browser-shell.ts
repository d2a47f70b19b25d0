import { mkdir } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Shell } from '../host/heapscope-service.js';

/**
 * The browser-mode shell: no native dialogs. Files come from the server-side list (command line,
 * sample, recent files), from "open path" (typed paths are accepted: the server is bound to
 * 127.0.0.1 and every request carries the token, so whoever types a path already runs as this
 * user on this machine) and from uploads of dropped files. Exports are written to a temp file and
 * offered once as a download.
 */
export function browserShell(workDir: string, offer: () => (path: string, fileName: string) => string): Shell {
  return {
    mode: 'browser',
    canTypePath: true,
    async exportTarget(suggestedName) {
      const dir = join(workDir, 'exports', randomBytes(8).toString('hex'));
      await mkdir(dir, { recursive: true });
      const path = join(dir, suggestedName);
      return { path, outcome: 'downloaded', downloadUrl: offer()(path, suggestedName) };
    },
  };
}
