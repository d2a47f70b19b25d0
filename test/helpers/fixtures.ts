import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
/** ../shared/fixtures beside the repo (CI has it); null when absent so tests can skip visibly. */
export const FIXTURES_DIR: string | null = (() => {
  const dir = process.env.HEAPSCOPE_FIXTURES ?? resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'fixtures');
  return existsSync(dir) ? dir : null;
})();
export function fixturePath(rel: string): string | null {
  if (!FIXTURES_DIR) return null;
  const p = join(FIXTURES_DIR, rel);
  return existsSync(p) ? p : null;
}
export const NO_FIXTURES = 'shared fixtures not found at ../shared/fixtures (set HEAPSCOPE_FIXTURES): skipped';
