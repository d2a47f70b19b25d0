import { nextTick, onBeforeUnmount, onMounted, type Ref } from 'vue';

/**
 * What the grids' row menus (ObjectMenu, TypeMenu) share: the first item takes the focus when the
 * menu opens (so a menu opened with Shift+F10 is usable from the keyboard at once), Up/Down move
 * between the enabled items, Escape or a click outside closes it, and closing hands the focus
 * back to what had it (the grid cell), so the keyboard user stays on the row.
 */
export function usePopupMenu(el: Ref<HTMLElement | null>, close: () => void): void {
  let returnTo: HTMLElement | null = null;

  const items = (): HTMLButtonElement[] => [...(el.value?.querySelectorAll<HTMLButtonElement>('button:not(:disabled)') ?? [])];

  function onDown(e: MouseEvent): void {
    if (el.value && !el.value.contains(e.target as Node)) close();
  }
  function onKey(e: KeyboardEvent): void {
    if (e.key === 'Escape') {
      e.preventDefault();
      close();
    } else if ((e.key === 'ArrowDown' || e.key === 'ArrowUp') && el.value?.contains(document.activeElement)) {
      e.preventDefault();
      const list = items();
      const i = list.indexOf(document.activeElement as HTMLButtonElement);
      const next = e.key === 'ArrowDown' ? (i + 1) % list.length : (i - 1 + list.length) % list.length;
      list[next]?.focus();
    }
  }
  onMounted(async () => {
    returnTo = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    window.addEventListener('mousedown', onDown, { capture: true });
    window.addEventListener('keydown', onKey);
    await nextTick();
    items()[0]?.focus();
  });
  onBeforeUnmount(() => {
    window.removeEventListener('mousedown', onDown, { capture: true });
    window.removeEventListener('keydown', onKey);
    // only if the focus is still in the menu: a choice that moved it elsewhere (a new view) keeps it
    if (returnTo?.isConnected && (!document.activeElement || document.activeElement === document.body || el.value?.contains(document.activeElement))) returnTo.focus();
  });
}
