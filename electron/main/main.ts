import { app, BrowserWindow, Menu } from 'electron';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { APP_VERSION } from '../host/app-paths.js';
import { createBackend, type Backend } from '../host/backend.js';
import { locateSample } from '../host/sample.js';
import { resolveWorkerScripts } from '../workers/worker-scripts.js';
import { filesFromArgv } from './argv-files.js';
import { electronShell } from './electron-shell.js';
import { forwardEvents, registerIpc, trustedSender } from './ipc-main.js';
import { buildMenu } from './menu.js';
import { createMainWindow, hardenSession } from './window.js';

/**
 * Electron main: app life cycle, one instance, files from everywhere, one window.
 *
 * Main is a broker, not a computer (ARCHITECTURE §9.1): dialogs, tokens and routing here; the
 * heaps live in worker_threads (electron/workers) behind the back end (electron/host).
 * Files arrive from argv (first start), `second-instance` (double-clicking a .gcdump while the
 * app runs: that instance quits and hands us its argv), macOS `open-file` (may fire before
 * `ready`), file associations (which are just those two paths), and `--open-sample` (npm start).
 */
const here = dirname(fileURLToPath(import.meta.url)); // out/main
const PRELOAD = join(here, '..', 'preload', 'preload.cjs');
const INDEX_HTML = join(here, '..', 'renderer', 'index.html');
const DEV = !app.isPackaged;

let backend: Backend | null = null;
let window: BrowserWindow | null = null;
const early: string[] = []; // open-file events before the back end exists


async function openPaths(paths: readonly string[], source: 'command-line' | 'open-file'): Promise<void> {
  for (const p of paths) {
    try {
      await backend!.requestOpen(p, source);
    } catch (e) {
      console.error(`heapscope: not opening ${p}: ${(e as Error).message}`);
    }
  }
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', (_e, argv, workingDirectory) => {
    if (backend) void openPaths(filesFromArgv(argv, { packaged: app.isPackaged, cwd: workingDirectory }), 'command-line');
    if (window) {
      if (window.isMinimized()) window.restore();
      window.focus();
    }
  });
  app.on('open-file', (e, path) => {
    e.preventDefault();
    if (backend) void openPaths([path], 'open-file');
    else early.push(path);
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('before-quit', () => {
    void backend?.dispose();
  });
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0 && backend) window = openWindow(backend);
  });
  void app.whenReady().then(start);
}

async function start(): Promise<void> {
  hardenSession();
  const sample = locateSample({ resourcesPath: process.resourcesPath, callerUrl: import.meta.url });
  backend = createBackend({
    version: APP_VERSION,
    shell: electronShell(() => window),
    configDir: app.getPath('userData'),
    samplePath: sample,
    scripts: resolveWorkerScripts(import.meta.url),
  });
  const b = backend;
  registerIpc({
    service: b.service,
    events: b.events,
    isTrusted: trustedSender(() => window?.webContents ?? null, pathToFileURL(INDEX_HTML).href),
    log: (m) => console.error(`heapscope main: ${m}`),
  });
  await openPaths(filesFromArgv(process.argv, { packaged: app.isPackaged, cwd: process.cwd() }), 'command-line');
  await openPaths(early.splice(0), 'open-file');
  if (process.argv.includes('--open-sample') && sample) await openPaths([sample], 'command-line');
  window = openWindow(b);
}

function openWindow(b: Backend): BrowserWindow {
  const w = createMainWindow({ preload: PRELOAD, indexHtml: INDEX_HTML });
  const stop = forwardEvents(b.events, w.webContents);
  w.on('closed', () => {
    stop();
    if (window === w) window = null;
  });
  Menu.setApplicationMenu(
    buildMenu({
      isMac: process.platform === 'darwin',
      dev: DEV,
      window: () => window,
      send: (command) => b.events.emit('menu-command', { command }),
    }),
  );
  return w;
}
