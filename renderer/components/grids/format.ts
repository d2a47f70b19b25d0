/**
 * Numbers for humans: thousands separators, binary size units, and the exact value for tooltips.
 *
 * A fixed locale (en-US grouping) keeps grids, CSV-vs-UI comparisons and tests stable no matter
 * what the OS locale is; the "exact" mode shows raw byte counts for people who paste into
 * spreadsheets. Sizes use 1024-based units labelled KB/MB/GB, as Visual Studio and PerfView do,
 * switching to the next unit at 1,000 of one ("0.98 MB", never "1,000.2 KB").
 */
import { noun } from '../../../shared/util/plural';

export type SizeFormat = 'auto' | 'bytes';

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const twoDecimals = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

const UNITS = ['bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** 1234567 → "1,234,567". Non-finite values (missing data) render as an em dash. */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return grouped.format(Math.round(n));
}

/**
 * 1536 → "1.50 KB"; below 1,000 bytes the exact count ("812 bytes"). `bytes` mode always gives the
 * exact count. Units are binary (1 KB = 1,024 bytes) but switch at 1,000 of a unit, so a value
 * never shows four integer digits: 1,000 bytes → "0.98 KB", 999.95 KB → "0.98 MB", never
 * "1,000.0 KB". The switch is decided on the rounded text, so what is shown is what was tested.
 */
export function formatBytes(n: number | null | undefined, mode: SizeFormat = 'auto'): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const abs = Math.abs(n);
  if (mode === 'bytes' || abs < 1000) return `${grouped.format(Math.round(n))} ${abs === 1 ? 'byte' : 'bytes'}`;
  let unit = 1;
  let v = abs / 1024;
  let text = unitText(v);
  while (shownValue(text) >= 1000 && unit < UNITS.length - 1) {
    v /= 1024;
    unit++;
    text = unitText(v);
  }
  return `${n < 0 ? '-' : ''}${text} ${UNITS[unit]}`;
}

/** Two decimals below 10 keep small differences visible ("1.02 MB" vs "1.05 MB"); one above. */
function unitText(v: number): string {
  const two = twoDecimals.format(v);
  return shownValue(two) < 10 ? two : oneDecimal.format(v);
}

function shownValue(text: string): number {
  return Number(text.replace(/,/g, ''));
}

/** "1 type", "2 types", "1,024 objects": a grouped count with its noun agreeing. */
export function formatCountOf(n: number, singular: string, pluralForm?: string): string {
  return `${formatCount(n)} ${noun(n, singular, pluralForm)}`;
}

/** Exact byte count for tooltips: "1,234,567 bytes". */
export function exactBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '';
  return `${grouped.format(Math.round(n))} bytes`;
}

/** Signed values for diffs: "+1,024", "-3", "0". */
export function formatSignedCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  return n > 0 ? `+${grouped.format(n)}` : grouped.format(n);
}

/** Signed sizes for diffs: "+1.50 KB", "-812 bytes". */
export function formatSignedBytes(n: number | null | undefined, mode: SizeFormat = 'auto'): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  const s = formatBytes(n, mode);
  return n > 0 ? `+${s}` : s;
}

/**
 * Share of a total: "12.3 %"; values under 0.1 % show as "<0.1 %" rather than a misleading "0.0 %".
 * Returns "—" when the total is 0 or unknown.
 */
export function formatPercent(part: number, total: number): string {
  if (!Number.isFinite(part) || !Number.isFinite(total) || total <= 0) return '—';
  const p = (part / total) * 100;
  if (p > 0 && p < 0.1) return '<0.1 %';
  return `${oneDecimal.format(p)} %`;
}

/** Milliseconds for durations: "850 ms", "1.25 s", "2 min 05 s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  // GC pauses are often well under 10 ms: show them to the hundredth, not as "0 ms".
  if (ms < 10) return `${twoDecimals.format(ms)} ms`;
  if (ms < 1000) return `${grouped.format(ms)} ms`;
  if (ms < 60_000) return `${twoDecimals.format(ms / 1000)} s`;
  const min = Math.floor(ms / 60_000);
  const sec = Math.round((ms % 60_000) / 1000);
  return `${min} min ${String(sec).padStart(2, '0')} s`;
}

/** Addresses arrive as decimal or hex strings (64-bit values do not fit a JS number exactly). */
export function formatAddress(addr: string | number | null | undefined): string {
  if (addr === null || addr === undefined || addr === '') return '—';
  if (typeof addr === 'number') return `0x${addr.toString(16)}`;
  if (/^0x/i.test(addr)) return `0x${addr.slice(2).toLowerCase()}`;
  if (/^\d+$/.test(addr)) return `0x${BigInt(addr).toString(16)}`;
  return addr;
}

/**
 * A module as a grid shows it: a path's file name ("C:\\…\\mscorlib.dll" → "mscorlib.dll"), and a
 * module the trace never named (Mono traces lack the module load events, so the reader calls it
 * "Module(0x7ff000002000)") by the last six hex digits of its id: "Module(…002000)". The cell's
 * tooltip keeps the full text.
 */
export function shortModuleName(module: string | null | undefined): string {
  if (typeof module !== 'string') return '';
  const raw = /^Module\(0x([0-9a-f]+)\)$/i.exec(module);
  if (raw) return raw[1].length > 6 ? `Module(…${raw[1].slice(-6)})` : module;
  return module.split(/[\\/]/).pop() ?? module;
}
