import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../../../../shared/formats/detect.js';
import { readSnapshot } from '../../../../../shared/formats/read-snapshot.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';

function elf(type: number, bigEndian = false): Uint8Array {
  const h = new Uint8Array(64);
  h.set([0x7f, 0x45, 0x4c, 0x46, 2, bigEndian ? 2 : 1, 1]);
  if (bigEndian) h[17] = type;
  else h[16] = type;
  return h;
}

function machO(magic: number, filetype: number): Uint8Array {
  const h = new Uint8Array(64);
  const v = new DataView(h.buffer);
  v.setUint32(0, magic, true);
  v.setUint32(12, filetype, true);
  return h;
}

describe('process dump detection by content', () => {
  it('knows ELF cores, minidumps and Mach-O cores, and not executables', () => {
    expect(detectFormat(elf(4))).toBe('dump'); // ET_CORE
    expect(detectFormat(elf(4, true))).toBe('dump');
    expect(detectFormat(elf(2))).toBe('unknown'); // ET_EXEC
    expect(detectFormat(elf(3))).toBe('unknown'); // ET_DYN (a shared library)
    expect(detectFormat(new Uint8Array([0x4d, 0x44, 0x4d, 0x50, 0x93, 0xa7, 0, 0]))).toBe('dump'); // "MDMP"
    expect(detectFormat(machO(0xfeedfacf, 4))).toBe('dump'); // MH_MAGIC_64, MH_CORE
    expect(detectFormat(machO(0xfeedface, 4))).toBe('dump');
    expect(detectFormat(machO(0xfeedfacf, 2))).toBe('unknown'); // MH_EXECUTE
    expect(detectFormat(new Uint8Array([0x7f, 0x45, 0x4c]))).toBe('unknown'); // too short to tell
    expect(detectFormat(elf(4).subarray(0, 17))).toBe('unknown'); // e_type cut in half
  });

  it('without a registered dump reader (the browser bundle), a dump is one coded error', async () => {
    await expect(readSnapshot(new MemoryByteSource(elf(4), 'core.1234'))).rejects.toMatchObject({ code: 'dump/helper-missing' });
  });

  it('an ELF executable is not a dump: opening it is format/unknown', async () => {
    await expect(readSnapshot(new MemoryByteSource(elf(2), 'a.out'))).rejects.toMatchObject({
      code: 'format/unknown',
      message: 'a.out is not a .gcdump, .nettrace or Compact Framework heap log',
    });
  });
});
