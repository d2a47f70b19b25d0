import { UsageError } from './args.js';
import { formatNumber, type Writer } from './output.js';
import { escapeControl } from './terminal-text.js';

/**
 * CI gates: `--fail-if-retained TYPE=BYTES` (report) and `--fail-if-growth TYPE=BYTES` (diff).
 *
 * TYPE is an exact type name, or `*` for the whole heap (the bytes reachable from the roots).
 * The split is at the LAST `=`, so a type name containing `=` still works. BYTES is a number with
 * an optional unit: B, KB, MB, GB (binary: 1 KB = 1,024 bytes; KiB, MiB, GiB mean the same),
 * case-insensitive, decimals allowed (`1.5MB`). A limit is exceeded when the value is strictly
 * greater than it. A type that is not in the snapshot(s) cannot exceed anything; that is noted
 * on stderr (it is often a typo) but does not fail the run.
 */
export interface Threshold {
  /** Exact type name, or '*' for the whole heap. */
  type: string;
  /** Limit in bytes. */
  bytes: number;
  /** As given on the command line, for messages. */
  spec: string;
}

export interface ThresholdBreach {
  threshold: Threshold;
  actual: number;
  message: string;
}

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1024,
  kib: 1024,
  k: 1024,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  m: 1024 ** 2,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
  g: 1024 ** 3,
};

/** "10MB" → 10,485,760; a usage error for anything else. */
export function parseBytes(text: string, flagName: string): number {
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m ? UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined) {
    throw new UsageError(`--${flagName}: "${text}" is not a byte count (use e.g. 500000, 512KB, 10MB, 1.5GB)`);
  }
  return Math.round(Number(m[1]) * unit);
}

/** "System.String=10MB" → { type: 'System.String', bytes: 10485760 }. */
export function parseThreshold(spec: string, flagName: string): Threshold {
  const eq = spec.lastIndexOf('=');
  if (eq <= 0 || eq === spec.length - 1) {
    throw new UsageError(`--${flagName} needs TYPE=BYTES (e.g. System.String=10MB, or *=200MB for the whole heap), got "${spec}"`);
  }
  const type = spec.slice(0, eq).trim();
  if (type.length === 0) throw new UsageError(`--${flagName}: empty type name in "${spec}"`);
  return { type, bytes: parseBytes(spec.slice(eq + 1), flagName), spec };
}

export function parseThresholds(specs: readonly string[], flagName: string): Threshold[] {
  return specs.map((s) => parseThreshold(s, flagName));
}

/**
 * "6,840 bytes (6.68 KB)"; the unit part only from 1 KB up. The unit switches at 1,000 of one
 * (binary units: 1,024,205 bytes is "(0.98 MB)", never "(1,000.2 KB)"), judged on the rounded value.
 */
export function formatBytes(n: number): string {
  const abs = Math.abs(n);
  const exact = `${formatNumber(n)} bytes`;
  if (abs < 1024) return exact;
  const units = ['KB', 'MB', 'GB'] as const;
  let i = 0;
  let v = Math.round((abs / 1024) * 100) / 100;
  while (v >= 1000 && i < units.length - 1) {
    i++;
    v = Math.round((abs / 1024 ** (i + 1)) * 100) / 100;
  }
  return `${exact} (${formatNumber(n < 0 ? -v : v)} ${units[i]})`;
}

/**
 * Check every threshold. `valueOf(type)` gives the measured bytes for a type name (for '*' the
 * whole heap), or undefined when the type is absent. `what` completes the message:
 * "retained size is", "retained size grew by".
 */
export function evaluateThresholds(
  thresholds: readonly Threshold[],
  valueOf: (type: string) => number | undefined,
  what: string,
  flagName: string,
  notes: Writer,
): ThresholdBreach[] {
  const breaches: ThresholdBreach[] = [];
  for (const t of thresholds) {
    const actual = valueOf(t.type);
    if (actual === undefined) {
      notes.write(`note: --${flagName} ${t.spec}: no type named "${t.type}" (exact, case-sensitive name); nothing to check\n`);
      continue;
    }
    if (actual > t.bytes) {
      const name = t.type === '*' ? 'the whole heap' : t.type;
      breaches.push({
        threshold: t,
        actual,
        message: `threshold exceeded: ${name} ${what} ${formatBytes(actual)}, over the limit of ${formatBytes(t.bytes)} (--${flagName} ${t.spec})`,
      });
    }
  }
  return breaches;
}

/**
 * `--fail-if-retained` for a type table: Σ retained of the rows named `type` (one name can have
 * several type indices), `total` for '*', undefined when no row has that name.
 */
export function retainedOfType(rows: readonly { name: string; retainedSize: number }[], type: string, total: number): number | undefined {
  if (type === '*') return total;
  let sum: number | undefined;
  for (const r of rows) if (r.name === type) sum = (sum ?? 0) + r.retainedSize;
  return sum;
}

/** Print breaches on stderr; true when there was any (the caller then exits with EXIT_THRESHOLD). */
export function reportBreaches(breaches: readonly ThresholdBreach[], stderr: Writer): boolean {
  for (const b of breaches) stderr.write(`${escapeControl(b.message)}\n`); // names a type: one line each
  return breaches.length > 0;
}
