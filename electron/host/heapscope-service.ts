import { AppError } from '../../shared/errors.js';
import type { AppInfo, ExportCsvReq, ExportResult, FileEntry, FileLists, HeapscopeService } from '../../shared/ipc/contract.js';
import type { FileRegistry } from './file-registry.js';
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
  /** Where an export goes: a save dialog (Electron) or a temp file offered for download (browser). Null = cancelled. */
  exportTarget(suggestedName: string): Promise<{ path: string; outcome: 'saved' | 'downloaded'; downloadUrl?: string } | null>;
  /** Browser mode accepts typed paths (localhost, token-protected); Electron only dropped ones. */
  canTypePath: boolean;
}

export interface ServiceDeps {
  version: string;
  shell: Shell;
  files: FileRegistry;
  recent: RecentFiles;
  sessions: SessionManager;
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
  const recentEntries = async (): Promise<FileEntry[]> => Promise.all((await d.recent.list()).map((r) => d.files.describe(r.path, 'recent')));

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
    dominatorChildren: (req) => d.sessions.query('dominatorChildren', req),
    dominatorPath: (req) => d.sessions.query('dominatorPath', req),
    pathsToRoots: (req) => d.sessions.query('pathsToRoots', req),
    generations: (req) => d.sessions.query('generations', req),
    gcTimeline: (req) => d.sessions.query('gcTimeline', req),
    diff: (req) => d.sessions.diff(req),
    async exportCsv(req: ExportCsvReq): Promise<ExportResult> {
      if (!d.sessions.has(req.sessionId)) throw new AppError('session/not-found', `no open session ${req.sessionId}`);
      const target = await d.shell.exportTarget(d.sessions.exportFileName(req));
      if (!target) return { outcome: 'cancelled', rows: 0, bytes: 0, fileName: '' };
      const r = await d.sessions.exportCsv(req, target.path);
      const fileName = target.outcome === 'saved' ? target.path.split(/[\\/]/).pop()! : r.fileName;
      return { outcome: target.outcome, rows: r.rows, bytes: r.bytes, fileName, ...(target.downloadUrl ? { downloadUrl: target.downloadUrl } : {}) };
    },
  };
}
