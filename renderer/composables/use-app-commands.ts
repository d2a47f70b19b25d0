import { onActivated, onBeforeUnmount, onDeactivated, onMounted } from 'vue';

/**
 * A tiny typed bus for commands that come from outside a view (keyboard shortcuts, the Electron
 * menu) but are carried out by whichever view is showing: "export the current grid", "focus its
 * filter". Not state, so not a store; listeners register while their view is mounted.
 */
export type ViewCommand = 'export-csv' | 'focus-filter';

type Listener = () => boolean | void;
const listeners = new Map<ViewCommand, Listener[]>();

/** Run `cmd` on the most recently registered listener that handles it (returns true if one did). */
export function runViewCommand(cmd: ViewCommand): boolean {
  const list = listeners.get(cmd) ?? [];
  for (let i = list.length - 1; i >= 0; i--) {
    if (list[i]() !== false) return true;
  }
  return false;
}

export function onViewCommand(cmd: ViewCommand, fn: Listener): () => void {
  const list = listeners.get(cmd) ?? [];
  list.push(fn);
  listeners.set(cmd, list);
  return () => {
    const l = listeners.get(cmd) ?? [];
    const i = l.indexOf(fn);
    if (i >= 0) l.splice(i, 1);
  };
}

/**
 * `onViewCommand` while the calling component is on screen. Tabs are kept alive (KeepAlive), so
 * a hidden tab's views unregister on deactivation; otherwise Ctrl+F would focus a filter box in
 * a tab nobody can see. Return false from `fn` to pass the command on.
 */
export function useViewCommand(cmd: ViewCommand, fn: Listener): void {
  let off: (() => void) | null = null;
  const on = () => {
    off ??= onViewCommand(cmd, fn);
  };
  const stop = () => {
    off?.();
    off = null;
  };
  onMounted(on);
  onActivated(on);
  onDeactivated(stop);
  onBeforeUnmount(stop);
}
