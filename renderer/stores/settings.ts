import { acceptHMRUpdate, defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';
import type { SizeFormat } from '../components/grids/format';

/**
 * User preferences: theme (follows the OS unless overridden), how sizes are shown, and whether a
 * tab opens on Insights by itself when its inspections find something worth attention.
 *
 * Persisted in localStorage: tiny, synchronous, and available in both Electron and browser mode.
 * `osDark` is fed by a `prefers-color-scheme` media query listener installed once by `watchOsTheme`.
 */
export type ThemeChoice = 'system' | 'light' | 'dark';

const STORAGE_KEY = 'heapscope.settings.v1';

interface Persisted {
  theme: ThemeChoice;
  sizeFormat: SizeFormat;
  insightsFirst: boolean;
}

function load(): Partial<Persisted> {
  try {
    const raw = globalThis.localStorage?.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Partial<Persisted>) : {};
  } catch {
    return {}; // corrupt or blocked storage: fall back to defaults rather than fail start-up
  }
}

export const useSettingsStore = defineStore('settings', () => {
  const saved = load();
  const theme = ref<ThemeChoice>(saved.theme === 'light' || saved.theme === 'dark' ? saved.theme : 'system');
  const sizeFormat = ref<SizeFormat>(saved.sizeFormat === 'bytes' ? 'bytes' : 'auto');
  const insightsFirst = ref(saved.insightsFirst !== false);
  const osDark = ref(false);

  const dark = computed(() => (theme.value === 'system' ? osDark.value : theme.value === 'dark'));

  watch([theme, sizeFormat, insightsFirst], () => {
    try {
      globalThis.localStorage?.setItem(STORAGE_KEY, JSON.stringify({ theme: theme.value, sizeFormat: sizeFormat.value, insightsFirst: insightsFirst.value }));
    } catch {
      // storage full or disabled: the preference just does not survive a restart
    }
  });

  function setTheme(t: ThemeChoice): void {
    theme.value = t;
  }

  /** system → light → dark → system, for the status-bar toggle. */
  function cycleTheme(): void {
    theme.value = theme.value === 'system' ? 'light' : theme.value === 'light' ? 'dark' : 'system';
  }

  function setSizeFormat(f: SizeFormat): void {
    sizeFormat.value = f;
  }

  /** Follow the OS colour scheme; returns the listener's remover. */
  function watchOsTheme(media: Pick<MediaQueryList, 'matches' | 'addEventListener' | 'removeEventListener'> | null): () => void {
    if (!media) return () => {};
    osDark.value = media.matches;
    const onChange = (e: { matches: boolean }) => {
      osDark.value = e.matches;
    };
    media.addEventListener('change', onChange);
    return () => media.removeEventListener('change', onChange);
  }

  function setInsightsFirst(on: boolean): void {
    insightsFirst.value = on;
  }

  return { theme, sizeFormat, insightsFirst, setInsightsFirst, osDark, dark, setTheme, cycleTheme, setSizeFormat, watchOsTheme };
});

if (import.meta.hot) import.meta.hot.accept(acceptHMRUpdate(useSettingsStore, import.meta.hot));
