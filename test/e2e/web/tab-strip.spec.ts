import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { generateCfHeapLogText } from '../../tools/gen-cf-heaplog';
import { SKIP, openApp, openPath, shot, tabNamed } from './helpers';
import { writeEarlyGcTrace } from './gc-chart-helpers';

// The tab strip (issue 14 item 6): 13 tabs at 1280 px keep the active tab and "+" in view, the
// wheel scrolls the strip, a list menu reaches every tab, and two AppDomain sections of one CF
// heap log read differently.
test.skip(!!SKIP, SKIP);

const VIEW = 1280;

/** 13 tiny traces with long, distinct names (each opens on its GC timeline at once). */
function thirteenTraces(): string[] {
  const work = process.env.HEAPSCOPE_E2E_WORK!;
  const src = writeEarlyGcTrace(work);
  return Array.from({ length: 13 }, (_, i) => {
    const p = join(work, `service_trace_20240517_${String(i + 1).padStart(2, '0')}.nettrace`);
    copyFileSync(src, p);
    return p;
  });
}

async function openThirteen(page: Page): Promise<string[]> {
  await openApp(page);
  const files = thirteenTraces();
  for (const f of files) {
    await openPath(page, f);
    const name = f.slice(f.lastIndexOf('/') + 1);
    await expect(tabNamed(page, name)).toHaveClass(/active/);
  }
  await expect(page.getByTestId('tab')).toHaveCount(13);
  return files.map((f) => f.slice(f.lastIndexOf('/') + 1));
}

/** Whether tab `name` lies fully inside the scroller's visible part and the window. */
async function inView(page: Page, name: string): Promise<boolean> {
  const tab = (await tabNamed(page, name).boundingBox())!;
  const strip = (await page.getByTestId('tab-scroller').boundingBox())!;
  return tab.x >= strip.x - 0.5 && tab.x + tab.width <= strip.x + strip.width + 0.5 && tab.x + tab.width <= VIEW;
}

test('13 tabs at 1280 px: the active tab and "+" stay visible, the wheel scrolls the strip', async ({ page }) => {
  expect(page.viewportSize()!.width).toBe(VIEW);
  const names = await openThirteen(page);
  const scroller = page.getByTestId('tab-scroller');
  const overflow = await scroller.evaluate((el) => el.scrollWidth - el.clientWidth);
  expect(overflow).toBeGreaterThan(300);
  // the last opened (active) tab and "+" are on screen
  expect(await inView(page, names[12])).toBe(true);
  const plus = (await page.getByTestId('tab-open').boundingBox())!;
  expect(plus.x + plus.width).toBeLessThanOrEqual(VIEW);
  await expect(page.getByTestId('tab-open')).toBeInViewport({ ratio: 1 });
  expect(await inView(page, names[0])).toBe(false);
  await shot(page, '18-thirteen-tabs');
  // the wheel over the strip scrolls it back to the first tab
  const box = (await scroller.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const before = await scroller.evaluate((el) => el.scrollLeft);
  await page.mouse.wheel(0, -200);
  await expect.poll(() => scroller.evaluate((el) => el.scrollLeft)).toBe(Math.max(0, before - 200));
  for (let i = 0; i < 40 && (await scroller.evaluate((el) => el.scrollLeft)) > 0; i++) await page.mouse.wheel(0, -200);
  await expect.poll(() => scroller.evaluate((el) => el.scrollLeft)).toBe(0);
  expect(await inView(page, names[0])).toBe(true);
  // the active tab is now scrolled away; the menu test brings one back
  expect(await inView(page, names[12])).toBe(false);
});

test('the tab list menu names every tab and switches to the picked one, scrolling it into view', async ({ page }) => {
  const names = await openThirteen(page);
  await page.getByTestId('tab-list').click();
  const menu = page.getByTestId('tab-list-menu');
  await expect(menu).toBeVisible();
  await expect(menu.getByTestId('tab-list-item')).toHaveText(names.map((n) => new RegExp(n.replace(/\./g, '\\.'))));
  await shot(page, '19-tab-list');
  await menu.getByTestId('tab-list-item').nth(2).click();
  await expect(menu).toHaveCount(0);
  await expect(tabNamed(page, names[2])).toHaveClass(/active/);
  await expect.poll(() => inView(page, names[2])).toBe(true);
  // Escape closes it
  await page.getByTestId('tab-list').click();
  await expect(menu).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
});

test('two AppDomain sections of one CF heap log: distinct tab labels and tooltips with the AppDomain', async ({ page }) => {
  const work = process.env.HEAPSCOPE_E2E_WORK!;
  const { text, sections } = generateCfHeapLogText({ objects: 300 });
  const log = join(work, 'device_heaplog_20240517_101500.log');
  writeFileSync(log, text);
  await openApp(page);
  await openPath(page, log);
  const tabs = page.getByTestId('tab');
  await expect(tabs).toHaveCount(2, { timeout: 30_000 });
  for (const s of sections) await expect(tabs.filter({ hasText: s.name })).toHaveCount(1, { timeout: 30_000 });
  const titles = await tabs.evaluateAll((els) => els.map((e) => e.getAttribute('title') ?? ''));
  const labels = await tabs.locator('.name').allTextContents();
  expect(new Set(labels).size).toBe(2);
  expect(titles.map((t) => t.split('\n')[0])).toEqual(sections.map((s) => `device_heaplog_20240517_101500.log — ${s.name}`));
  expect(titles.every((t) => t.split('\n')[1] === log)).toBe(true);
  await page.getByTestId('tab-list').click();
  await expect(page.getByTestId('tab-list-item')).toHaveText(sections.map((s) => new RegExp(`— ${s.name.replace(/\./g, '\\.')}`)));
});
