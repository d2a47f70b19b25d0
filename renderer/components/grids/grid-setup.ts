import {
  CellApiModule,
  CellStyleModule,
  ClientSideRowModelApiModule,
  ClientSideRowModelModule,
  ColumnApiModule,
  ColumnAutoSizeModule,
  EventApiModule,
  InfiniteRowModelModule,
  ModuleRegistry,
  RenderApiModule,
  RowApiModule,
  RowSelectionModule,
  RowStyleModule,
  ScrollApiModule,
  TooltipModule,
  colorSchemeVariable,
  provideGlobalGridOptions,
  themeQuartz,
} from 'ag-grid-community';

/**
 * AG Grid registration and theme, done once at start-up.
 *
 * AG Grid 36 uses the theming API (no CSS import). `colorSchemeVariable` switches light/dark from
 * the `data-ag-theme-mode` attribute on <body>, which App.vue keeps in step with the settings
 * store, so a theme change repaints every grid without recreating it.
 */
let registered = false;

/**
 * Only the features the grids use (sorting, column move and resize are in AG Grid's core).
 * `AllCommunityModule` would also bring editors, filters, CSV export, pagination, grid state,
 * row drag, cell spans… and every grid would create their services on start-up: the first grid's
 * synchronous creation was the renderer's longest main-thread task while a snapshot loaded.
 */
const MODULES = [
  ClientSideRowModelModule, // monitor, GC timeline, dominator tree
  ClientSideRowModelApiModule,
  InfiniteRowModelModule, // types, instances, diff (purgeInfiniteCache)
  RowSelectionModule,
  TooltipModule, // tooltipField, headerTooltip
  CellStyleModule, // cellClass, cellClassRules
  RowStyleModule,
  ColumnAutoSizeModule, // double-click on a column's resize handle
  ColumnApiModule, // getColumnState, getAllDisplayedColumns
  RowApiModule, // getRowNode
  CellApiModule,
  ScrollApiModule, // ensureNodeVisible
  RenderApiModule, // refreshCells
  EventApiModule,
];

export function registerGrid(): void {
  if (registered) return;
  ModuleRegistry.registerModules(MODULES);
  // Tooltips (tooltipField, headerTooltip) as the native `title`, like the size cells' exact byte
  // counts: AG Grid's own tooltips put a tooltip manager with five mouse/keyboard listeners on
  // every cell, a quarter of the time it takes to draw a screen of rows.
  provideGlobalGridOptions({ enableBrowserTooltips: true });
  registered = true;
}

/** Dense desktop look: 26 px rows, system UI font, tabular digits for aligned numbers. */
export const gridTheme = themeQuartz.withPart(colorSchemeVariable).withParams({
  fontFamily: 'var(--font-ui)',
  fontSize: 12.5,
  headerFontSize: 12,
  headerFontWeight: 600,
  rowHeight: 26,
  headerHeight: 30,
  spacing: 6,
  wrapperBorderRadius: 0,
  borderRadius: 3,
  accentColor: 'var(--accent)',
  // the app's palette (base.css), so grids match the chrome around them in both themes
  backgroundColor: 'var(--bg)',
  foregroundColor: 'var(--fg)',
  borderColor: 'var(--border)',
  headerBackgroundColor: 'var(--bg-alt)',
  chromeBackgroundColor: 'var(--bg-alt)',
  selectedRowBackgroundColor: 'var(--accent-soft)',
  wrapperBorder: false,
  browserColorScheme: 'inherit',
});
