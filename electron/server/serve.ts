import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, delimiter } from 'node:path';
import { mkdtemp } from 'node:fs/promises';
import type { Writer } from '../cli/output.js';
import { defaultConfigDir, APP_VERSION } from '../host/app-paths.js';
import { createBackend, type Backend } from '../host/backend.js';
import { locateSample } from '../host/sample.js';
import type { WorkerScripts } from '../workers/worker-scripts.js';
import { newToken } from './access.js';
import { browserShell } from './browser-shell.js';
import { startServer, type RunningServer } from './http-server.js';

/**
 * Browser mode in one call: back end + server on 127.0.0.1, the URL printed on ONE line
 * (`Heapscope is serving at http://127.0.0.1:PORT/?token=…`, which the e2e tests and scripts
 * parse), and the default browser opened when possible. Opening is best effort: no opener
 * (headless box, container) is not an error.
 */
export interface ServeOptions {
  files: readonly string[];
  /** Files the UI should open as soon as it connects (npm start: the sample), not just list. */
  openAtStart?: readonly string[];
  port?: number;
  open: boolean;
  rendererDir: string | null;
  scripts: WorkerScripts;
  stdout: Writer;
  stderr: Writer;
  configDir?: string;
  poolSize?: number;
}

export interface Serving {
  server: RunningServer;
  backend: Backend;
  stop(): Promise<void>;
}

export const SERVING_PREFIX = 'Heapscope is serving at ';

export async function serveBrowserMode(o: ServeOptions): Promise<Serving> {
  const workDir = await mkdtemp(join(tmpdir(), 'heapscope-serve-'));
  let server: RunningServer | null = null;
  const backend = createBackend({
    version: APP_VERSION,
    shell: browserShell(workDir, () => server!.offerDownload),
    configDir: o.configDir ?? defaultConfigDir(),
    samplePath: locateSample(),
    scripts: o.scripts,
    poolSize: o.poolSize,
    // e2e and server tests jam a worker on purpose (workers/debug-jam.ts); never set by users
    debugJam: process.env.HEAPSCOPE_DEBUG_JAM === '1',
  });
  const { rejected } = await backend.addCommandLineFiles(o.files);
  for (const r of rejected) o.stderr.write(`warning: not opening ${r.path}: ${r.message}\n`);
  for (const p of o.openAtStart ?? []) {
    await backend.requestOpen(p, 'command-line').catch((e: unknown) => o.stderr.write(`warning: not opening ${p}: ${(e as Error).message}\n`));
  }
  if (!o.rendererDir) o.stderr.write('warning: the renderer is not built (out/renderer): run `npm run build`; the page will say so\n');
  try {
    server = await startServer({ backend, rendererDir: o.rendererDir, token: newToken(), workDir, port: o.port });
  } catch (e) {
    await backend.dispose();
    throw e;
  }
  o.stdout.write(`${SERVING_PREFIX}${server.url}\n`);
  if (o.open) openInBrowser(server.url);
  const running = server;
  return {
    server: running,
    backend,
    async stop() {
      await running.close();
      await backend.dispose();
    },
  };
}

/** xdg-open / open / start, detached; silently nothing when none is available. */
export function openInBrowser(url: string): boolean {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '""', url] : [url];
  if (process.platform === 'linux' && !onPath(cmd)) return false;
  try {
    const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

function onPath(cmd: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, cmd)));
}
