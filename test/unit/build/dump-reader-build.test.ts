import { describe, expect, it } from 'vitest';
import { helperExecutable, publishDumpReader, RIDS, ridFor } from '../../../build/dump-reader.mjs';

/** Which self-contained helper each installer carries (build/dump-reader.mjs, called from electron-builder's beforePack). */
describe('dump reader per platform', () => {
  it('maps electron-builder platform and arch to the helper RID (Windows on Arm: the x64 helper)', () => {
    expect(RIDS).toEqual(['linux-x64', 'win-x64', 'osx-x64', 'osx-arm64']);
    expect(ridFor('linux', 'x64')).toBe('linux-x64');
    expect(ridFor('win32', 'x64')).toBe('win-x64');
    expect(ridFor('win32', 'arm64')).toBe('win-x64');
    expect(ridFor('darwin', 'x64')).toBe('osx-x64');
    expect(ridFor('darwin', 'arm64')).toBe('osx-arm64');
    expect(helperExecutable('win-x64')).toBe('heapscope-dump-reader.exe');
    expect(helperExecutable('osx-arm64')).toBe('heapscope-dump-reader');
  });

  it('refuses a RID it does not build before running dotnet', () => {
    expect(() => publishDumpReader('win-arm64')).toThrow('unknown dump reader RID win-arm64 (known: linux-x64, win-x64, osx-x64, osx-arm64)');
  });
});
