import { describe, expect, it } from 'vitest';
import { isProcessDump } from '../../../../shared/formats/process-dump-magic.js';
import '../../../../shared/formats/all-readers.js';
import { readSnapshot } from '../../../../shared/formats/read-snapshot.js';
import { MemoryByteSource } from '../../../../shared/util/byte-source.js';

const elf = (eType: number, bigEndian = false) => {
  const b = new Uint8Array(64);
  b.set([0x7f, 0x45, 0x4c, 0x46, 2, bigEndian ? 2 : 1, 1]);
  if (bigEndian) b[17] = eType;
  else b[16] = eType;
  return b;
};

describe('process dump recognition', () => {
  it('an ELF core (e_type 4) is a dump; an executable or shared object is not', () => {
    expect(isProcessDump(elf(4))).toBe(true);
    expect(isProcessDump(elf(4, true))).toBe(true);
    expect(isProcessDump(elf(2))).toBe(false);
    expect(isProcessDump(elf(3))).toBe(false);
    expect(isProcessDump(elf(4).subarray(0, 17))).toBe(false);
  });

  it('a Windows minidump (MDMP) and a Mach-O core are dumps', () => {
    expect(isProcessDump(Uint8Array.of(0x4d, 0x44, 0x4d, 0x50, 0x93, 0xa7))).toBe(true);
    const macho = new Uint8Array(32);
    macho.set([0xcf, 0xfa, 0xed, 0xfe]);
    macho[12] = 4;
    expect(isProcessDump(macho)).toBe(true);
    macho[12] = 2; // MH_EXECUTE
    expect(isProcessDump(macho)).toBe(false);
  });

  it('opening one is format/dump-unsupported, not format/unknown', async () => {
    const src = new MemoryByteSource(elf(4), 'x.dmp');
    await expect(readSnapshot(src)).rejects.toMatchObject({
      code: 'format/dump-unsupported',
      message: 'x.dmp is a process dump; Heapscope cannot read process dumps yet (open it with dotnet-dump analyze)',
    });
    await expect(readSnapshot(new MemoryByteSource(elf(2), 'a.out'))).rejects.toMatchObject({ code: 'format/unknown' });
  });
});
