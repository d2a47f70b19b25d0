/**
 * Type-name rules of dotnet-gcdump (nettrace-format.md §C4), so converted graphs name types the
 * way dotnet-gcdump, PerfView and Visual Studio show them.
 */

/**
 * ``Dictionary`2[System.String,System.Object]`` → `Dictionary<System.String,System.Object>`:
 * drop the generic arity (`` `N ``), turn brackets into angle brackets, then restore array
 * suffixes (`<>` → `[]`). Multi-dimensional arrays come out as `Int32<,>`, as in PerfView.
 */
export function cleanTypeName(name: string): string {
  return name.replace(/`\d+/g, '').replace(/\[/g, '<').replace(/\]/g, '>').replace(/<>/g, '[]');
}

/** The size-bucket suffix for objects larger than 1000 bytes, or '' (thresholds are "> 1000"). */
export function sizeBucketSuffix(size: number): string {
  if (size <= 1000) return '';
  if (size < 10_000) return ' (Bytes > 1K)';
  if (size < 100_000) return ' (Bytes > 10K)';
  if (size < 1_000_000) return ' (Bytes > 100K)';
  if (size < 10_000_000) return ' (Bytes > 1M)';
  if (size < 100_000_000) return ' (Bytes > 10M)';
  return ' (Bytes > 100M)';
}

/** Bucket number 0–6 (0 = no bucket), for per-type caches of bucket types. */
export function sizeBucket(size: number): number {
  if (size <= 1000) return 0;
  if (size < 10_000) return 1;
  if (size < 100_000) return 2;
  if (size < 1_000_000) return 3;
  if (size < 10_000_000) return 4;
  if (size < 100_000_000) return 5;
  return 6;
}

export const BUCKET_SUFFIXES = ['', ' (Bytes > 1K)', ' (Bytes > 10K)', ' (Bytes > 100K)', ' (Bytes > 1M)', ' (Bytes > 10M)', ' (Bytes > 100M)'];

/** Lower-case hex without padding, as dotnet-gcdump's "0x%x" (from two 32-bit halves). */
export function hex(lo: number, hi = 0): string {
  return hi ? (hi >>> 0).toString(16) + (lo >>> 0).toString(16).padStart(8, '0') : (lo >>> 0).toString(16);
}
