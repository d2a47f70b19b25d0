/** What a grid component exposes to its parent view (template ref). */
export interface GridHandle {
  /** Re-render cells (after a size-format change) without refetching. */
  refreshCells(): void;
  /** Drop cached blocks and refetch what is visible. */
  purge(): void;
  focusFirstRow(): void;
  /**
   * Refetch the cached blocks in place (new values, same sort): the old rows stay on screen until
   * the new ones arrive, and the scroll position and selected row are kept.
   */
  refreshRows(): void;
  /** Set the header's sort without a user click; the grid refetches from row 0 ('api' sort change). */
  /** false when the grid has no API yet (nothing was applied). */
  applySort(colId: string, dir: 'asc' | 'desc'): boolean;
  /** Scroll row `index` of the current order into view (middle of the viewport); false if the grid has no such row yet. */
  showIndex(index: number): boolean;
}
