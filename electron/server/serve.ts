import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, delimiter, resolve } from 'node:path';
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
  /** Files named on the command line: listed on the Welcome page and opened as tabs on the first page load. */
  files: readonly string[];
  /** `serve --list-only`: `files` are only listed, not opened. */
  listOnly?: boolean;
  /** Further files the UI should open as soon as it connects, without listing them. */
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
  const { added, rejected } = await backend.addCommandLineFiles(o.files);
  for (const r of rejected) o.stderr.write(`warning: not opening ${r.path}: ${r.message}\n`);
  // Queued for the first page that connects (takePendingOpens), in command-line order; a file
  // named twice opens once. Later pages and reloads get their tabs from the saved session instead.
  const toOpen = new Set(o.listOnly ? [] : added.map((f) => f.displayPath));
  for (const p of o.openAtStart ?? []) toOpen.add(resolve(p));
  for (const p of toOpen) {
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
