import { defineConfig } from '@playwright/test';

/**
 * Electron smoke tests (test/e2e/electron). They skip themselves, visibly, when this machine has
 * no Electron binary (offline installs never get one; TOOLCHAIN §3): `npx playwright test -c
 * playwright.electron.config.ts` then reports "1 skipped" and exits 0. Run `npm run build` first.
 */
export default defineConfig({
  testDir: 'test/e2e/electron',
  timeout: 60_000,
  workers: 1,
  reporter: process.env.PW_JSON ? [['list'], ['json', { outputFile: process.env.PW_JSON }]] : [['list']],
});
