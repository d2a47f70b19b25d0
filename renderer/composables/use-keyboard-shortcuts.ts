import { onBeforeUnmount, onMounted } from 'vue';

/**
 * App-wide shortcuts. Ctrl on Windows/Linux, Cmd on macOS (either is accepted everywhere so the
 * browser-mode page behaves the same on any client). Ctrl+Tab and Ctrl+W are reserved by desktop
 * browsers in ordinary windows, so browser mode also gets Ctrl+PageDown/PageUp and Alt+W.
 */
export interface ShortcutActions {
  open(): void;
  closeTab(): void;
  nextTab(): void;
  previousTab(): void;
  /** Returns false when no view had a filter to focus (then the browser's own find runs). */
  focusFilter(): boolean;
  /** Ctrl/Cmd+Shift+O: Capture from process… */
  capture(): void;
  /** Ctrl/Cmd+S: Save snapshot as… */
  save(): void;
  /** Ctrl/Cmd+G: Go to address (opens the object in the inspector). */
  goToAddress(): void;
}

export function shortcutFor(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>): keyof ShortcutActions | null {
  const mod = e.ctrlKey || e.metaKey;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (mod && e.shiftKey && !e.altKey && key === 'o') return 'capture';
  if (mod && !e.altKey && key === 'o') return 'open';
  if (mod && !e.shiftKey && !e.altKey && key === 's') return 'save';
  if ((mod && !e.altKey && key === 'w') || (e.altKey && !mod && key === 'w')) return 'closeTab';
  if (e.ctrlKey && key === 'Tab') return e.shiftKey ? 'previousTab' : 'nextTab';
  if (e.ctrlKey && key === 'PageDown') return 'nextTab';
  if (e.ctrlKey && key === 'PageUp') return 'previousTab';
  if (mod && !e.altKey && key === 'f') return 'focusFilter';
  if (mod && !e.shiftKey && !e.altKey && key === 'g') return 'goToAddress';
  return null;
}

export function useKeyboardShortcuts(actions: ShortcutActions): void {
  function onKey(e: KeyboardEvent): void {
    const which = shortcutFor(e);
    if (!which) return;
    if (which === 'focusFilter') {
      if (actions.focusFilter()) e.preventDefault();
      return;
    }
    e.preventDefault();
    actions[which]();
  }
  onMounted(() => window.addEventListener('keydown', onKey, { capture: true }));
  onBeforeUnmount(() => window.removeEventListener('keydown', onKey, { capture: true }));
}
