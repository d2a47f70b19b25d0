import { Menu, type BrowserWindow, type MenuItemConstructorOptions } from 'electron';
import type { MenuCommand } from '../../shared/ipc/contract.js';

/**
 * The application menu. Items that act on the UI send a `menu-command` event; the renderer
 * decides what "export" or "close tab" means for the active tab. Shortcuts use CmdOrCtrl so they
 * read naturally on macOS and elsewhere.
 */
export function buildMenu(opts: { send(command: MenuCommand): void; isMac: boolean; dev: boolean; window: () => BrowserWindow | null }): Menu {
  const cmd = (label: string, command: MenuCommand, accelerator?: string): MenuItemConstructorOptions => ({
    label,
    accelerator,
    click: () => opts.send(command),
  });
  const template: MenuItemConstructorOptions[] = [
    ...(opts.isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: '&File',
      submenu: [
        cmd('&Open Snapshot…', 'open-file', 'CmdOrCtrl+O'),
        cmd('Open &Sample Snapshot', 'open-sample'),
        { type: 'separator' },
        cmd('&Capture from Process…', 'capture-process', 'CmdOrCtrl+Shift+O'),
        cmd('&Monitor GCs…', 'monitor-gcs'),
        { type: 'separator' },
        cmd('Save Snapshot &As…', 'save-snapshot', 'CmdOrCtrl+S'),
        cmd('&Export View as CSV…', 'export-csv', 'CmdOrCtrl+E'),
        { type: 'separator' },
        cmd('&Close Tab', 'close-tab', 'CmdOrCtrl+W'),
        ...(opts.isMac ? [] : [{ type: 'separator' as const }, { role: 'quit' as const }]),
      ],
    },
    { role: 'editMenu' },
    {
      label: '&View',
      submenu: [
        cmd('&Types', 'show-types', 'CmdOrCtrl+1'),
        cmd('&Dominators', 'show-dominators', 'CmdOrCtrl+2'),
        cmd('&Generations', 'show-generations', 'CmdOrCtrl+3'),
        cmd('D&iff', 'show-diff', 'CmdOrCtrl+4'),
        { type: 'separator' },
        cmd('&Find', 'find', 'CmdOrCtrl+F'),
        cmd('&Go to Address…', 'go-to-address', 'CmdOrCtrl+G'),
        cmd('&Next Tab', 'next-tab', 'Ctrl+Tab'),
        cmd('&Previous Tab', 'previous-tab', 'Ctrl+Shift+Tab'),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { role: 'togglefullscreen' },
        ...(opts.dev ? [{ type: 'separator' as const }, { role: 'reload' as const }, { role: 'toggleDevTools' as const }] : []),
      ],
    },
    { role: 'windowMenu' },
    { role: 'help', submenu: [cmd('&About Heapscope', 'about')] },
  ];
  return Menu.buildFromTemplate(template);
}
