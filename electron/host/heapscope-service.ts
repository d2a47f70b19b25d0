import { copyFile, stat, unlink } from 'node:fs/promises';
import { AppError } from '../../shared/errors.js';
import type { AppInfo, ExportCsvReq, ExportReportResult, ExportResult, FileEntry, FileLists, HeapscopeService, SaveSnapshotResult } from '../../shared/ipc/contract.js';
import { mapFsError } from '../files/file-byte-source.js';
import { writeProcessDump } from '../diagnostics/dump-writer.js';
import type { CaptureStore } from './capture-store.js';
import type { DumpInspectors } from './dump-inspectors.js';
import type { FileRegistry } from './file-registry.js';
import type { GcMonitors } from './gc-monitors.js';
import { describeProcess, listProcesses } from './process-list.js';
import type { RecentFiles } from './recent-files.js';
import type { SessionManager } from './session-manager.js';

/**
 * The whole contract implemented once, for every transport (Electron IPC, the WebSocket server,
 * tests). What differs between Electron and browser mode is only the shell: native dialogs
 * versus a server-side file list, saving versus downloading. That part comes in as a `Shell`.
 */
export interface Shell {
  mode: 'electron' | 'browser';
  /** Native open dialog → a path, or null when cancelled. Absent in browser mode. */
  pickFile?(): Promise<string | null>;
  /**
   * Where an export ('csv') or a copy of a snapshot ('snapshot', Save snapshot as…) goes: a save
   * dialog (Electron) or a temp file offered for download (browser). Null = cancelled.
   */
  exportTarget(suggestedName: string, kind?: 'csv' | 'snapshot' | 'report'): Promise<{ path: string; outcome: 'saved' | 'downloaded'; downloadUrl?: string } | null>;
  /** Browser mode accepts typed paths (localhost, token-protected); Electron only dropped ones. */
  canTypePath: boolean;
}

export interface ServiceDeps {
  version: string;
  shell: Shell;
  files: FileRegistry;
  recent: RecentFiles;
  sessions: SessionManager;
  monitors: GcMonitors;
  captures: CaptureStore;
  /** The dump tabs' query helpers (dumpRuntime, dumpThreads, dumpObject); absent in back ends without dump tabs (some tests). */
  dumps?: DumpInspectors;
  /** Bundled sample snapshot, or null when it is not installed. */
  samplePath: string | null;
  /** Files named on the command line (validated at startup). */
  commandLine: FileEntry[];
  /** Files to open as soon as the UI asks (argv, open-file before the window was ready). */
  pendingOpens: FileEntry[];
  /** The UI drained the queue (it subscribes to `open-requested` first): later opens go out as events. */
  onUiReady?(): void;
}

export function createHeapscopeService(d: ServiceDeps): HeapscopeService {
  const sample = async (): Promise<FileEntry | null> => (d.samplePath ? d.files.register(d.samplePath, 'sample').catch(() => null) : null);
  const recentEntries = async (): Promise<FileEntry[]> =>
    Promise.all((await d.recent.list()).map(async (r) => ({ ...(await d.files.describe(r.path, 'recent')), openedAt: r.openedAt })));

  return {
    async appInfo(): Promise<AppInfo> {
      return {
        version: d.version,
        mode: d.shell.mode,
        platform: process.platform,
        canPickFile: typeof d.shell.pickFile === 'function',
        canTypePath: d.shell.canTypePath,
        uploadsDroppedFiles: d.shell.mode === 'browser',
        sample: await sample(),
      };
    },
    async listFiles(): Promise<FileLists> {
      return { commandLine: d.commandLine, recent: await recentEntries(), sample: await sample() };
    },
    async takePendingOpens() {
      d.onUiReady?.();
      return d.pendingOpens.splice(0, d.pendingOpens.length);
    },
    async pickFile() {
      if (!d.shell.pickFile) throw new AppError('usage/bad-argument', 'there is no file dialog in browser mode: use the file list or drop a file');
      const path = await d.shell.pickFile();
      return path === null ? null : d.files.register(path, 'dialog');
    },
    async registerPath(req) {
      if (req.via === 'typed' && !d.shell.canTypePath) throw new AppError('usage/bad-argument', 'typed paths are not accepted here: use File ▸ Open');
      // 'restore' is accepted in Electron too: it is no more than 'drop' (a path the renderer
      // hands over, checked here to be a snapshot file), and it lets saved tabs reopen after a restart
      if (req.via === 'restore') return d.files.reregister(req.path);
      return d.files.register(req.path, req.via === 'drop' ? 'drop' : 'path');
    },
    async removeRecent(req) {
      await d.recent.remove(d.files.resolve(req.fileToken));
    },
    async clearRecent() {
      await d.recent.clear();
    },
    async open(req) {
      const path = d.files.resolve(req.fileToken);
      const file = await d.files.entryOf(req.fileToken);
      if (!file.exists) throw new AppError('io/not-found', `no such file: ${file.displayPath}`);
      return d.sessions.open(file, path, req.select);
    },
    async listSessions() {
      return d.sessions.list();
    },
    summary: (req) => d.sessions.summary(req.sessionId),
    cancel: (req) => d.sessions.cancel(req.sessionId),
    close: (req) => d.sessions.close(req.sessionId),
    typeRows: (req) => d.sessions.query('typeRows', req),
    objectRows: (req) => d.sessions.query('objectRows', req),
    objectInfo: (req) => d.sessions.query('objectInfo', req),
    references: (req) => d.sessions.query('references', req),
    objectAtAddress: (req) => d.sessions.query('objectAtAddress', req),
    dominatorChildren: (req) => d.sessions.query('dominatorChildren', req),
    dominatorPath: (req) => d.sessions.query('dominatorPath', req),
    pathsToRoots: (req) => d.sessions.query('pathsToRoots', req),
    generations: (req) => d.sessions.query('generations', req),
    gcTimeline: (req) => d.sessions.query('gcTimeline', req),
    dominatorTypeGroups: (req) => d.sessions.query('dominatorTypeGroups', req),
    dominatorTypeInstances: (req) => d.sessions.query('dominatorTypeInstances', req),
    retainedBy: (req) => d.sessions.query('retainedBy', req),
    computeAgain: (req) => d.sessions.computeAgain(req.sessionId),
    retainedByObjects: (req) => d.sessions.query('retainedByObjects', req),
    inspections: (req) => d.sessions.query('inspections', req),
    dominatorSunburst: (req) => d.sessions.query('dominatorSunburst', req),
    setIgnored: (req) => d.sessions.setIgnored(req),
    stringRows: (req) => d.sessions.query('stringRows', req),
    stringInstances: (req) => d.sessions.query('stringInstances', req),
    dumpRuntime: (req) => dumpsOf(d).query(req.sessionId, { query: 'runtime' }),
    dumpThreads: (req) => dumpsOf(d).query(req.sessionId, { query: 'threads' }),
    dumpObject: (req) => dumpsOf(d).query(req.sessionId, { query: 'object', address: req.address, ...(req.elements !== undefined ? { elements: req.elements } : {}) }),
    diff: (req) => d.sessions.diff(req),
    trend: (req) => d.sessions.trend(req),
    trendDominators: (req) => d.sessions.trendDominators(req),
    setRetained: (req) => d.sessions.setRetained(req),
    cancelSetRetained: (req) => d.sessions.cancelSetRetained(req.sessionId),
    async exportCsv(req: ExportCsvReq): Promise<ExportResult> {
      if (req.view === 'gc-monitor') {
        const target = await d.shell.exportTarget(d.monitors.exportFileName(req.monitorId), 'csv');
        if (!target) return exportCancelled();
        const r = await d.monitors.exportCsv(req.monitorId, target.path);
        return { outcome: target.outcome, rows: r.rows, bytes: r.bytes, fileName: baseName(target.path), ...downloadOf(target) };
      }
      if (!d.sessions.has(req.sessionId)) throw new AppError('session/not-found', `no open session ${req.sessionId}`);
      const target = await d.shell.exportTarget(d.sessions.exportFileName(req), 'csv');
      if (!target) return exportCancelled();
      const r = await d.sessions.exportCsv(req, target.path);
      const fileName = target.outcome === 'saved' ? baseName(target.path) : r.fileName;
      return { outcome: target.outcome, rows: r.rows, bytes: r.bytes, fileName, ...downloadOf(target) };
    },
    async saveSnapshot(req): Promise<SaveSnapshotResult> {
      await d.sessions.summary(req.sessionId); // a capture's file exists only once it is done
      const { file, path } = d.sessions.fileOf(req.sessionId);
      const target = await d.shell.exportTarget(file.name, 'snapshot');
      if (!target) return { outcome: 'cancelled', bytes: 0, fileName: '' };
      if (target.path === path) return { outcome: target.outcome, bytes: file.size, fileName: baseName(path) };
      try {
        await copyFile(path, target.path);
      } catch (e) {
        await unlink(target.path).catch(() => undefined);
        throw mapFsError(e, target.path);
      }
      const bytes = (await stat(target.path)).size;
      return { outcome: target.outcome, bytes, fileName: target.outcome === 'saved' ? baseName(target.path) : file.name, ...downloadOf(target) };
    },
    async exportReport(req): Promise<ExportReportResult> {
      if (!d.sessions.has(req.sessionId)) throw new AppError('session/not-found', `no open session ${req.sessionId}`);
      if (req.baselineSessionId !== undefined && !d.sessions.has(req.baselineSessionId)) throw new AppError('session/not-found', `no open session ${req.baselineSessionId}`);
      const target = await d.shell.exportTarget(d.sessions.reportFileName(req.sessionId), 'report');
      if (!target) return { outcome: 'cancelled', bytes: 0, fileName: '', suspects: 0, findings: 0 };
      const r = await d.sessions.exportReport(req, target.path);
      return { outcome: target.outcome, ...r, fileName: baseName(target.path), ...downloadOf(target) };
    },
    listProcesses: () => listProcesses(),
    async captureProcess(req) {
      // Checked here so a wrong pid fails the call itself (process/not-found, process/not-dotnet)
      // instead of opening a tab that fails a moment later.
      const who = await describeProcess(req.pid);
      const path = await d.captures.newPath(req.pid, who.name);
      const file = await d.files.describe(path, 'capture');
      const info = d.sessions.capture(file, path, req.pid, req.timeoutSec ?? 60);
      void d.captures.prune(d.sessions.openPaths()).catch(() => undefined);
      return info;
    },
    async captureDump(req) {
      const who = await describeProcess(req.pid); // process/not-found, process/not-dotnet
      const path = await d.captures.newDumpPath(req.pid, who.name);
      const kind = req.kind ?? 'heap';
      const r = await writeProcessDump({ pid: req.pid, path, kind, timeoutSec: req.timeoutSec ?? 120 });
      await d.recent.add(path).catch(() => undefined); // listed under Recent files
      void d.captures.prune(d.sessions.openPaths()).catch(() => undefined);
      return { file: await d.files.describe(path, 'capture'), kind, pid: req.pid, bytes: r.bytes, ms: r.ms };
    },
    startGcMonitor: (req) => d.monitors.start(req.pid),
    stopGcMonitor: (req) => d.monitors.stop(req.monitorId),
    gcMonitorRows: async (req) => d.monitors.rows(req.monitorId, req.start, req.end),
    gcMonitorStatus: async (req) => d.monitors.status(req.monitorId),
  };
}

function dumpsOf(d: ServiceDeps): DumpInspectors {
  if (!d.dumps) throw new AppError('dump/helper-missing', 'this back end reads no process dumps');
  return d.dumps;
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop()!;
}

/** The save dialog was dismissed: nothing written. */
function exportCancelled(): ExportResult {
  return { outcome: 'cancelled', rows: 0, bytes: 0, fileName: '' };
}

/** `downloadUrl` only when the shell gave one (browser mode): Electron results carry no such key. */
function downloadOf(target: { downloadUrl?: string }): { downloadUrl?: string } {
  return target.downloadUrl ? { downloadUrl: target.downloadUrl } : {};
}
