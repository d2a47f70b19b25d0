import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { GcScript } from '../../helpers/gc-event-script';

/**
 * Reading the GC timeline chart (ECharts, SVG renderer) from a spec: bars are <path>s filled
 * with their generation's colour (the --bar-N variables), axis names and ticks are <text>s. The
 * plot sits GRID pixels inside the chart's box (renderer/components/timeline/gc-chart-option.ts).
 */
export const GRID = { left: 70, right: 70, top: 40, bottom: 78 };

export const chart = (page: Page): Locator => page.getByTestId('gc-chart');

/** How many painted shapes use the colour of CSS variable `v` (the legend's icon included). */
export async function shapesFilled(page: Page, v: string): Promise<number> {
  return chart(page).evaluate((el, name) => {
    const probe = document.createElement('i');
    probe.style.color = `var(${name})`;
    el.appendChild(probe);
    const want = getComputedStyle(probe).color;
    probe.remove();
    const norm = (c: string) => {
      probe.style.color = c;
      el.appendChild(probe);
      const r = getComputedStyle(probe).color;
      probe.remove();
      return r;
    };
    return Array.from(el.querySelectorAll('path')).filter((p) => {
      const f = p.getAttribute('fill');
      return f && f !== 'none' && norm(f) === want;
    }).length;
  }, v);
}

export async function chartTexts(page: Page): Promise<string[]> {
  return chart(page).evaluate((el) => Array.from(el.querySelectorAll('text')).map((t) => (t.textContent ?? '').trim()));
}

/** The page point of the bottom of the bar of a GC starting at `startMs` on an axis 0…spanMs (bars are ≥ 4 px wide, ≥ 3 px high, from their start). */
export async function barPoint(page: Page, startMs: number, spanMs: number): Promise<{ x: number; y: number }> {
  const box = (await chart(page).boundingBox())!;
  const plotW = box.width - GRID.left - GRID.right;
  return { x: box.x + GRID.left + (startMs / spanMs) * plotW + 2, y: box.y + box.height - GRID.bottom - 1.5 };
}

/**
 * allocTrace's shape (a .NET 5 heap-snapshot trace whose GCs all happen within its first ms while
 * the trace lasts 7.43 s): a gen0, a gen1 and a background gen2 GC before 1 ms, then a non-GC
 * suspension ending at 7,430 ms, the trace's last event.
 */
export function writeEarlyGcTrace(dir: string): string {
  const s = new GcScript()
    .suspend(0, 1).start(0.05, 1, 1, 0, 0).end(0.2, 1, 1, 0, [1e6, 2e6, 3e6, 0, 0], 0x2).restart(0.25, 1)
    .suspend(0.3, 1).start(0.35, 1, 2, 1, 0).end(0.5, 1, 2, 1, [5e5, 2.5e6, 3e6, 0, 0], 0x2).restart(0.55, 1)
    .suspend(0.6, 1).start(0.62, 1, 3, 2, 1).restart(0.7, 1).end(0.95, 1, 3, 2, [4e5, 1e6, 4e6, 0, 0], 0x1)
    .suspend(7429.9, 2, 0).restart(7430, 2);
  const path = join(dir, 'early-gcs.nettrace');
  writeFileSync(path, s.bytes());
  return path;
}

/** `n` blocking GCs 100 ms apart (every 10th gen1, every 50th gen2): past the chart's SVG limit it draws on a canvas. */
export function writeManyGcTrace(dir: string, n: number): string {
  const s = new GcScript();
  let t = 1;
  for (let i = 1; i <= n; i++) {
    const gen = i % 50 === 0 ? 2 : i % 10 === 0 ? 1 : 0;
    s.suspend(t, 1).start(t + 0.05, 1, i, gen, 0).end(t + 0.5, 1, i, gen, [1e6 + (i % 100) * 1e4, 2e6, 3e6, 0, 0], 0x2).restart(t + 1, 1);
    t += 100;
  }
  const path = join(dir, `many-gcs-${n}.nettrace`);
  writeFileSync(path, s.bytes());
  return path;
}
