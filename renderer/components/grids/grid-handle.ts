/** What a grid component exposes to its parent view (template ref). */
export interface GridHandle {
  /** Re-render cells (after a size-format change) without refetching. */
  refreshCells(): void;
  /** Drop cached blocks and refetch what is visible. */
  purge(): void;
  focusFirstRow(): void;
}
