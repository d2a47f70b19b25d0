import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { writeContentsDump, type ContentsDump } from './dump-contents.js';

/**
 * For a vitest describe block: writes the DumpContentsApp dump once before its tests and removes
 * it after them. The object returned is filled in by the beforeAll (its fields are unset until
 * then), so tests read `d.dump` as if it were a variable the block assigned.
 */
export function useContentsDump(type?: 'heap' | 'full'): ContentsDump {
  const d = {} as ContentsDump;
  beforeAll(async () => {
    Object.assign(d, await writeContentsDump(type));
  }, 300_000);
  afterAll(() => {
    if (d.dir) rmSync(d.dir, { recursive: true, force: true });
  });
  return d;
}
