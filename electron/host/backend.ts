import type { ResourceLimits } from 'node:worker_threads';
import type { FileEntry, FileSource, HeapscopeEvents, HeapscopeService } from '../../shared/ipc/contract.js';
import type { WorkerScripts } from '../workers/worker-scripts.js';
import { join } from 'node:path';
import { CaptureStore } from './capture-store.js';
import { DumpInspectors } from './dump-inspectors.js';
import { EventHub } from './event-hub.js';
import { FileRegistry } from './file-registry.js';
import { GcMonitors } from './gc-monitors.js';
import { createHeapscopeService, type Shell } from './heapscope-service.js';
import { RecentFiles } from './recent-files.js';
import { SessionManager } from './session-manager.js';

/**
 * The back end both front doors share (Electron main and the browser-mode server): file tokens,
 * recent files, the worker pool with its sessions, the event hub, and the service implementing
 * the contract. No electron import here, so it is tested under plain Node.
 */
export interface BackendOptions {
  version: string;
  shell: Shell;
  /** Where recent-files.json lives. */
  configDir: string;
  /** Where live captures are saved (default `<configDir>/captures`). */
  captureDir?: string;
  samplePath: string | null;
  scripts: WorkerScripts;
  poolSize?: number;
  resourceLimits?: ResourceLimits;
  inlineAnalysis?: boolean;
  /** Test-only: loads of files with a `<file>.jam` marker spin in their worker (workers/debug-jam.ts). */
  debugJam?: boolean;
}

export interface Backend {
  service: HeapscopeService;
  events: EventHub;
  files: FileRegistry;
  sessions: SessionManager;
  recent: RecentFiles;
  monitors: GcMonitors;
  captures: CaptureStore;
  dumps: DumpInspectors;
  /** Validate and list files given on the command line (bad ones are reported, not fatal). */
  addCommandLineFiles(paths: readonly string[]): Promise<{ added: FileEntry[]; rejected: { path: string; message: string }[] }>;
  /** Ask the UI to open a file: queued until it calls takePendingOpens, announced by `open-requested` once it listens. */
  requestOpen(path: string, source: FileSource): Promise<FileEntry>;
  dispose(): Promise<void>;
}

export function createBackend(o: BackendOptions): Backend {
  const events = new EventHub();
  const files = new FileRegistry();
  const recent = new RecentFiles(o.configDir);
  const sessions = new SessionManager({
    scripts: o.scripts,
    emit: events.emit,
    poolSize: o.poolSize,
    resourceLimits: o.resourceLimits,
    inlineAnalysis: o.inlineAnalysis,
    debugJam: o.debugJam,
    onOpened: (path) => void recent.add(path).catch(() => undefined),
  });
  const monitors = new GcMonitors({ emit: events.emit });
  const captures = new CaptureStore(o.captureDir ?? join(o.configDir, 'captures'));
  const dumps = new DumpInspectors(sessions);
  // A dump tab's reader ends with its session, however the session ends (closed, worker crash).
  events.subscribe((name, payload) => {
    if (name === 'session-closed') void dumps.close((payload as HeapscopeEvents['session-closed']).sessionId);
  });
  const commandLine: FileEntry[] = [];
  const pendingOpens: FileEntry[] = [];
  let uiReady = false;
  const service = createHeapscopeService({
    version: o.version,
    shell: o.shell,
    files,
    recent,
    sessions,
    monitors,
    captures,
    dumps,
    samplePath: o.samplePath,
    commandLine,
    pendingOpens,
    onUiReady: () => void (uiReady = true),
  });
  return {
    service,
    events,
    files,
    sessions,
    recent,
    monitors,
    captures,
    dumps,
    async addCommandLineFiles(paths) {
      const added: FileEntry[] = [];
      const rejected: { path: string; message: string }[] = [];
      for (const p of paths) {
        try {
          const e = await files.register(p, 'command-line');
          commandLine.push(e);
          added.push(e);
        } catch (err) {
          rejected.push({ path: p, message: (err as Error).message });
        }
      }
      return { added, rejected };
    },
    async requestOpen(path, source) {
      const file = await files.register(path, source);
      if (uiReady) events.emit('open-requested', { file });
      else pendingOpens.push(file);
      return file;
    },
    async dispose() {
      await monitors.dispose();
      await dumps.dispose();
      await sessions.dispose();
    },
  };
}
