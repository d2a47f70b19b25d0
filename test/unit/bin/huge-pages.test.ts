import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the launcher's, without types
import { HUGE_PAGES_MIN_FILE, hugePagesEnvironment, transparentHugePageMode } from '../../../bin/huge-pages.mjs';

// The launcher's choice of huge pages (bin/huge-pages.mjs), with the system stubbed: which runs
// get GLIBC_TUNABLES=glibc.malloc.hugetlb=1 and which run as they are.

type Env = Record<string, string | undefined>;
const choose = hugePagesEnvironment as (args: string[], env: Env, system?: object) => Env | null;
const big = HUGE_PAGES_MIN_FILE as number;
const sizes: Record<string, number> = { 'big.gcdump': big, 'small.gcdump': big - 1 };
const linux = { platform: 'linux', mode: () => 'madvise', fileSize: (p: string) => sizes[p] ?? 0 };

describe('hugePagesEnvironment', () => {
  it('asks for huge pages when an argument is a file of the threshold size or more', () => {
    expect(choose(['report', 'big.gcdump', '--top', '3'], { PATH: '/bin' }, linux)).toEqual({ PATH: '/bin', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' });
    expect(choose(['diff', 'small.gcdump', 'big.gcdump'], {}, linux)).toEqual({ GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' });
  });

  it('keeps the tunables already set and adds its own after them', () => {
    expect(choose(['report', 'big.gcdump'], { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }, linux)).toEqual({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1' });
  });

  it('runs as it is for smaller files, no files, and flags (which are never tried as files)', () => {
    expect(choose(['report', 'small.gcdump'], {}, linux)).toBeNull();
    expect(choose(['--help'], {}, linux)).toBeNull();
    const everythingBig = { ...linux, fileSize: () => 2 * big };
    expect(choose(['--version'], {}, everythingBig)).toBeNull();
  });

  it('follows HEAPSCOPE_HUGE_PAGES: 0 never, 1 whatever the files', () => {
    expect(choose(['report', 'big.gcdump'], { HEAPSCOPE_HUGE_PAGES: '0' }, linux)).toBeNull();
    expect(choose(['serve'], { HEAPSCOPE_HUGE_PAGES: '1' }, linux)).toEqual({ HEAPSCOPE_HUGE_PAGES: '1', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' });
  });

  it('never re-runs a run that already has the tunable (its own re-run, or the user’s choice)', () => {
    expect(choose(['report', 'big.gcdump'], { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' }, linux)).toBeNull();
    expect(choose(['report', 'big.gcdump'], { GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' }, linux)).toBeNull();
  });

  it('does nothing where it cannot help: other systems, THP always, never or unknown', () => {
    for (const platform of ['win32', 'darwin']) expect(choose(['report', 'big.gcdump'], {}, { ...linux, platform })).toBeNull();
    for (const mode of ['always', 'never', null]) expect(choose(['report', 'big.gcdump'], { HEAPSCOPE_HUGE_PAGES: '1' }, { ...linux, mode: () => mode })).toBeNull();
  });
});

describe('transparentHugePageMode', () => {
  const mode = transparentHugePageMode as (read: (path: string) => string) => string | null;
  it('reads the bracketed mode of the kernel file', () => {
    expect(mode(() => 'always [madvise] never\n')).toBe('madvise');
    expect(mode(() => '[always] madvise never\n')).toBe('always');
  });
  it('is null without the file or the brackets', () => {
    expect(
      mode(() => {
        throw new Error('ENOENT');
      }),
    ).toBeNull();
    expect(mode(() => 'madvise')).toBeNull();
  });
});
