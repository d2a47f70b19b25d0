import { FormatError } from '../errors.js';

/**
 * Process dumps (an ELF core file, a Windows minidump "MDMP", a Mach-O core) are recognised so
 * that opening one says plainly that Heapscope cannot read them *yet*, instead of calling the file
 * unknown. The ClrMD-based dump reader (issue 15) replaces this once it lands: detection then
 * routes these files to it and this check is no longer reached.
 */
export function isProcessDump(head: Uint8Array): boolean {
  const b = head;
  if (b.length >= 18 && b[0] === 0x7f && b[1] === 0x45 && b[2] === 0x4c && b[3] === 0x46) {
    const little = b[5] !== 2;
    const eType = little ? b[16] | (b[17] << 8) : (b[16] << 8) | b[17];
    return eType === 4; // ET_CORE
  }
  if (b.length >= 4 && b[0] === 0x4d && b[1] === 0x44 && b[2] === 0x4d && b[3] === 0x50) return true; // "MDMP"
  // Mach-O 64-bit (0xfeedfacf, little-endian on disk) with filetype MH_CORE (4)
  if (b.length >= 16 && b[0] === 0xcf && b[1] === 0xfa && b[2] === 0xed && b[3] === 0xfe) return (b[12] | (b[13] << 8)) === 4;
  return false;
}

/** The coded error for opening a process dump before the dump reader exists. */
export function processDumpNotReadable(name: string): FormatError {
  return new FormatError(
    'format/dump-unsupported',
    `${name} is a process dump; Heapscope cannot read process dumps yet (open it with dotnet-dump analyze)`,
    { offset: 0 },
  );
}
