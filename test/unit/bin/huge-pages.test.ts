import { describe, expect, it } from 'vitest';
import { hugePagesEnvironment, transparentHugePageMode } from '../../../bin/huge-pages.mjs';

// The launcher's choice of huge pages (bin/huge-pages.mjs), with the system stubbed: which runs
// get GLIBC_TUNABLES=glibc.malloc.hugetlb=1 and which run as they are.

type Env = Record<string, string | undefined>;
const choose = hugePagesEnvironment as (env: Env, system?: object) => Env | null;
const linux = { platform: 'linux', mode: () => 'madvise' };

describe('hugePagesEnvironment', () => {
  it('asks for huge pages when HEAPSCOPE_HUGE_PAGES=1, keeping the rest of the environment', () => {
    expect(choose({ HEAPSCOPE_HUGE_PAGES: '1', PATH: '/bin' }, linux)).toEqual({ HEAPSCOPE_HUGE_PAGES: '1', PATH: '/bin', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' });
  });

  it('runs as it is otherwise (the default: on the machine it was measured on it cost more than it saved)', () => {
    expect(choose({}, linux)).toBeNull();
    expect(choose({ HEAPSCOPE_HUGE_PAGES: '0' }, linux)).toBeNull();
    expect(choose({ HEAPSCOPE_HUGE_PAGES: 'yes' }, linux)).toBeNull();
  });

  it('keeps the tunables already set and adds its own after them', () => {
    expect(choose({ HEAPSCOPE_HUGE_PAGES: '1', GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' }, linux)).toEqual({
      HEAPSCOPE_HUGE_PAGES: '1',
      GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1',
    });
  });

  it('never re-runs a run that already has the tunable (its own re-run, or the user’s choice)', () => {
    expect(choose({ HEAPSCOPE_HUGE_PAGES: '1', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' }, linux)).toBeNull();
    expect(choose({ HEAPSCOPE_HUGE_PAGES: '1', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' }, linux)).toBeNull();
  });

  it('does nothing where it cannot help: other systems, THP always, never or unknown', () => {
    for (const platform of ['win32', 'darwin']) expect(choose({ HEAPSCOPE_HUGE_PAGES: '1' }, { ...linux, platform })).toBeNull();
    for (const mode of ['always', 'never', null]) expect(choose({ HEAPSCOPE_HUGE_PAGES: '1' }, { ...linux, mode: () => mode })).toBeNull();
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
