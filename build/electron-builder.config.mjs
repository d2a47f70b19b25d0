// electron-builder configuration (run with --config build/electron-builder.config.mjs).
//
// What goes into app.asar: package.json and the four built outputs only (out/main, out/preload,
// out/workers, out/renderer). Everything is bundled by esbuild/Vite, so no node_modules are
// packed (the runtime dependencies tsx and ws serve the CLI and browser mode, not the app).
// Worker bundles are also unpacked (asarUnpack): worker_threads cannot start a script that lives
// inside an asar archive. The sample snapshot ships beside the app (extraResources →
// resources/sample.gcdump), where electron/host/sample.ts looks for it.
//
// The dump reader (C# helper on ClrMD) ships self-contained per platform beside the archive, in
// resources/dump-reader/: the beforePack hook publishes the build for the platform and arch being
// packed into out/dump-reader-stage (build/dump-reader.mjs), and extraResources copies it. The
// Node side finds it through process.resourcesPath (electron/dump-reader/helper-process.ts).
//
// Offline build machines have no Electron binary (TOOLCHAIN §1b, §4): when
// node_modules/electron/dist has none, a stub "electron" executable stands in as electronDist so
// `--linux dir` can still assemble resources/app.asar for `npm run package:check`. Real installers
// (AppImage, deb, nsis, dmg) need the real binary and network access to electron-builder's tools.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { stageDumpReader } from './dump-reader.mjs';

/** electron-builder's Arch enum values → names. */
const ARCH_NAMES = ['ia32', 'x64', 'armv7l', 'arm64', 'universal'];

const realDist = 'node_modules/electron/dist';
let electronDist = realDist;
if (!existsSync(`${realDist}/electron`) && !existsSync(`${realDist}/electron.exe`) && !existsSync(`${realDist}/Electron.app`)) {
  electronDist = 'node_modules/.cache/electron-stub';
  mkdirSync(electronDist, { recursive: true });
  writeFileSync(`${electronDist}/electron`, '#!/bin/sh\necho "stub Electron: no real binary on the build machine" >&2\nexit 1\n');
  chmodSync(`${electronDist}/electron`, 0o755);
}

/** @type {import('electron-builder').Configuration} */
export default {
  appId: 'dev.heapscope.desktop',
  productName: 'Heapscope',
  executableName: 'heapscope',
  copyright: 'Copyright © Heapscope team',
  directories: { output: 'dist', buildResources: 'build' },
  files: [
    'package.json',
    'out/main/**/*',
    'out/preload/**/*',
    'out/workers/**/*',
    'out/renderer/**/*',
    '!**/*.map',
    '!**/*.ts',
    '!node_modules/**/*',
  ],
  asarUnpack: ['out/workers/**/*'],
  extraResources: [
    { from: 'electron/resources/sample.gcdump', to: 'sample.gcdump' },
    { from: 'out/dump-reader-stage', to: 'dump-reader', filter: ['**/*'] },
  ],
  beforePack: async (context) => {
    stageDumpReader(context.electronPlatformName, ARCH_NAMES[context.arch] ?? String(context.arch));
  },
  fileAssociations: [
    { ext: 'gcdump', name: 'GCHeapDump', description: '.NET heap dump', role: 'Viewer', mimeType: 'application/x-gcdump' },
    { ext: 'nettrace', name: 'NetTrace', description: '.NET EventPipe trace', role: 'Viewer', mimeType: 'application/x-nettrace' },
  ],
  electronDist,
  npmRebuild: false,
  publish: null,
  win: {
    target: [{ target: 'nsis', arch: ['x64', 'arm64'] }],
    icon: 'build/icon.png',
  },
  nsis: {
    oneClick: false,
    perMachine: false,
    allowToChangeInstallationDirectory: true,
    createDesktopShortcut: true,
  },
  mac: {
    target: [
      { target: 'dmg', arch: ['x64', 'arm64'] },
      { target: 'zip', arch: ['x64', 'arm64'] },
    ],
    category: 'public.app-category.developer-tools',
    icon: 'build/icon.png',
    hardenedRuntime: true,
  },
  linux: {
    target: ['AppImage', 'deb', 'tar.gz'],
    category: 'Development',
    icon: 'build/icons',
    maintainer: 'Heapscope team <team@heapscope.invalid>',
    synopsis: '.NET memory analysis: .gcdump, .nettrace and Compact Framework heap logs',
  },
  deb: { depends: ['libnss3', 'libgtk-3-0', 'libxss1', 'libasound2'] },
};
