import { defineConfig } from '@playwright/test';

/**
 * Browser-mode e2e: the built renderer served by `heapscope serve` (started in global-setup.ts
 * with the real fixtures), driven in Debian's Chromium. Playwright's own browser download is
 * unreachable on our build machines, hence executablePath (TOOLCHAIN §2, §9).
 *
 *   PW_JSON=/tmp/e2e.json npx playwright test        # what CI runs; JSON summed by ci-summary
 *   HEADED=1 xvfb-run -a npx playwright test          # same suite in a real X window
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'test/e2e/web',
  globalSetup: './test/e2e/web/global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: process.env.PW_JSON ? [['list'], ['json', { outputFile: process.env.PW_JSON }]] : [['list']],
  use: {
    browserName: 'chromium',
    headless: !process.env.HEADED,
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
    colorScheme: 'light',
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        ...(process.env.HEADED ? [] : ['--headless']),
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
});
