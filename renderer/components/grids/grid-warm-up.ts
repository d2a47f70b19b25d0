import { createGrid, type ColDef, type GridApi, type IDatasource } from 'ag-grid-community';
import { countColumn, percentColumn, sizeColumn, textColumn } from './columns';
import { gridTheme } from './grid-setup';

/**
 * One throw-away AG Grid, built and destroyed off screen at start-up, before the app mounts.
 *
 * Why: the first grid of a session runs cold code (V8 compiles AG Grid's functions lazily, on
 * first call) and injects the theme's CSS; that made the first Types grid of the first load the
 * renderer's longest main-thread task (100–240 ms on a busy 2-core machine). Run once here, the
 * real grid later costs its warm price. Before the mount, not in idle time after it: a file given
 * on the command line (or clicked at once) starts loading as soon as the app is mounted, and a
 * warm-up running then would itself be the long task during that load.
 *
 * Like InfiniteGrid, it is built in steps, one task each (bare grid, columns, rows, destroy), so
 * the window stays responsive. Costs ~100–250 ms of start-up time (the steps' sum), once per window.
 */
const FAKE_ROWS = 60;

/** The next task (a MessageChannel message: unlike setTimeout, not clamped or throttled). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      ch.port1.close();
      resolve();
    };
    ch.port2.postMessage(null);
  });
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

/** Resolves when done; never rejects (a warm-up that fails costs only the time it took). */
export async function warmUpGrid(): Promise<void> {
  const box = document.createElement('div');
  let api: GridApi | null = null;
  try {
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
    });
    await nextTask();
    api.setGridOption('columnDefs', warmColumns());
    await nextTask();
    api.setGridOption('datasource', warmDatasource);
    // the datasource answers in a timer. No animation frames here: a window that is not shown
    // yet gets none, and start-up must not wait for them.
    for (let i = 0; i < 20 && !box.querySelector('.ag-cell'); i++) await nextTask();
  } catch {
    // nothing to do: the real grids work the same, only colder
  } finally {
    api?.destroy();
    box.remove();
  }
}
