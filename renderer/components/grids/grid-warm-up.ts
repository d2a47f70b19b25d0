import { createGrid, type ColDef, type GridApi, type IDatasource } from 'ag-grid-community';
import { countColumn, percentColumn, sizeColumn, textColumn } from './columns';
import { gridTheme } from './grid-setup';

/**
 * One throw-away AG Grid, built and destroyed off screen while the app is idle after start-up.
 *
 * Why: the first grid of a session runs cold code (V8 compiles AG Grid's functions lazily, on
 * first call) and injects the theme's CSS; that made the first Types grid of the first load the
 * renderer's longest main-thread task (100–240 ms on a busy 2-core machine). Run once here, the
 * real grid later costs its warm price. Like InfiniteGrid, the warm-up is built in steps, one idle
 * callback each (bare grid, columns, rows, destroy), so none of them is itself a long task; and it
 * is skipped when a real grid already exists (the code is warm then anyway).
 *
 * Costs ~150 ms of main-thread time in total, in idle periods, once per window.
 */
const FAKE_ROWS = 60;

function idle(fn: () => void): void {
  // requestIdleCallback exists in Electron and Chromium; the timeout keeps a busy page from
  // postponing the warm-up until after the user's first load
  if (typeof requestIdleCallback === 'function') requestIdleCallback(fn, { timeout: 1500 });
  else setTimeout(fn, 50);
}

function realGridExists(): boolean {
  return document.querySelector('.ag-root-wrapper') !== null;
}

/** The Types grid's kinds of columns (text, count, size, percent), so their renderers run too. */
function warmColumns(): ColDef[] {
  const fmt = () => 'auto' as const;
  return [
    textColumn('type', 'Type', { flex: 3, minWidth: 200 }),
    textColumn('module', 'Module', { valueFormatter: (p) => String(p.value ?? '') }),
    countColumn('count', 'Count', { headerTooltip: 'count' }),
    sizeColumn('shallowSize', 'Shallow size', fmt),
    sizeColumn('retainedSize', 'Retained size', fmt, { sort: 'desc' }),
    percentColumn('retainedPercent', '% of heap'),
  ];
}

const warmDatasource: IDatasource = {
  getRows(p) {
    const rows = [];
    for (let i = p.startRow; i < Math.min(p.endRow, FAKE_ROWS); i++) {
      rows.push({ id: i, type: `Warm.Type${i}`, module: 'warm.dll', count: i * 3, shallowSize: i * 100, retainedSize: i % 2 ? null : i * 1000, retainedPercent: i / 10 });
    }
    p.successCallback(rows, FAKE_ROWS);
  },
};

let started = false;

/** Call once after the app has mounted. */
export function warmUpGridWhenIdle(): void {
  if (started) return;
  started = true;
  let box: HTMLDivElement | null = null;
  let api: GridApi | null = null;
  const finish = () => {
    api?.destroy();
    box?.remove();
    api = null;
    box = null;
  };
  const steps: (() => void)[] = [
    () => {
      box = document.createElement('div');
      box.setAttribute('aria-hidden', 'true');
      box.inert = true;
      // laid out (rows are only rendered into a sized viewport) but never seen or hit
      box.style.cssText = 'position:fixed;left:-10000px;top:0;width:900px;height:240px;visibility:hidden;pointer-events:none;contain:strict';
      document.body.append(box);
      api = createGrid(box, {
        theme: gridTheme,
        rowModelType: 'infinite',
        columnDefs: [],
        defaultColDef: { resizable: true, sortable: true, suppressHeaderMenuButton: true },
        cacheBlockSize: 200,
        infiniteInitialRowCount: 1,
        getRowId: (p) => String((p.data as { id: number }).id),
        animateRows: false,
        rowSelection: { mode: 'singleRow', checkboxes: false, enableClickSelection: true },
        enableCellTextSelection: true,
        tooltipShowDelay: 400,
      });
    },
    () => api?.setGridOption('columnDefs', warmColumns()),
    () => api?.setGridOption('datasource', warmDatasource),
    () => requestAnimationFrame(() => idle(finish)),
  ];
  let i = 0;
  const run = () => {
    // a view made a real grid meanwhile: its creation already paid the cold cost
    if (i === 0 && realGridExists()) return;
    try {
      steps[i++]();
    } catch {
      finish(); // a warm-up that fails costs nothing but the time spent
      return;
    }
    if (i < steps.length) idle(run);
  };
  idle(run);
}
