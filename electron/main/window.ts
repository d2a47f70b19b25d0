import { BrowserWindow, session, shell } from 'electron';
import { pathToFileURL } from 'node:url';

/**
 * The main window, locked down (ARCHITECTURE §11 rejects anything less):
 * contextIsolation on, sandbox on, nodeIntegration off, no webview, no navigation away from our
 * page, no new windows, no permissions (camera, notifications, …), and a strict CSP on every
 * response: scripts only from our own files. The renderer reaches main only through the
 * preload's `window.heapscope`.
 */
export const WINDOW_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export interface WindowPaths {
  preload: string;
  /** out/renderer/index.html */
  indexHtml: string;
}

export function createMainWindow(p: WindowPaths): BrowserWindow {
  const win = new BrowserWindow({
    width: 1400,
    height: 900,
    minWidth: 800,
    minHeight: 500,
    show: false,
    title: 'Heapscope',
    backgroundColor: '#1e1e1e',
    webPreferences: {
      preload: p.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      webviewTag: false,
      spellcheck: false,
    },
  });
  const pageUrl = pathToFileURL(p.indexHtml).href;
  const wc = win.webContents;
  // A file dropped outside the drop zone would otherwise navigate the window to it.
  wc.on('will-navigate', (e, url) => {
    if (url !== pageUrl) e.preventDefault();
  });
  wc.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.once('ready-to-show', () => win.show());
  void win.loadFile(p.indexHtml);
  return win;
}

/** Session-wide hardening: CSP header on every response, every permission request denied. */
export function hardenSession(): void {
  const s = session.defaultSession;
  s.webRequest.onHeadersReceived((details, cb) => {
    cb({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [WINDOW_CSP] } });
  });
  s.setPermissionRequestHandler((_wc, _permission, cb) => cb(false));
  s.setPermissionCheckHandler(() => false);
}
