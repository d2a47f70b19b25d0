/**
 * Which reader a file needs, decided by content (never by extension).
 *
 * - gcdump: `i32 20` + "!FastSerialization.1" at offset 0.
 * - nettrace: "Nettrace" + FastSerialization header (v4+), or a bare FastSerialization stream
 *   whose first object's type is "Trace" (NetPerf v3) or "Microsoft.DotNet.Runtime.EventPipeFile"
 *   (.NET Core 2.0, v1/v2; the nettrace reader then reports it as unsupported).
 * - cf-heaplog: text whose first meaningful line is a Compact Framework heap-log record
 *   (`a 2 <appdomain> ...`, or `t`/`o`/`r` records).
 *
 * - dump: a process dump: ELF core (ELF magic, e_type ET_CORE), Windows minidump ("MDMP"),
 *   Mach-O core (64/32-bit magic, filetype MH_CORE). Read by the ClrMD helper (Node hosts only).
 *
 * Never throws: anything else is 'unknown'.
 */
export type DetectedFormat = 'gcdump' | 'nettrace' | 'cf-heaplog' | 'dump' | 'unknown';

/** How many leading bytes `detectFormat` wants to see. */
export const DETECT_BYTES = 4096;

const FAST_SERIALIZATION = '!FastSerialization.1';

function ascii(bytes: Uint8Array, start: number, length: number): string {
  let s = '';
  const end = Math.min(bytes.length, start + length);
  for (let i = start; i < end; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

function hasFastSerializationHeader(bytes: Uint8Array, at: number): boolean {
  if (bytes.length < at + 24) return false;
  const len = bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24);
  return len === 20 && ascii(bytes, at + 4, 20) === FAST_SERIALIZATION;
}

export function detectFormat(head: Uint8Array): DetectedFormat {
  if (ascii(head, 0, 8) === 'Nettrace') return 'nettrace';
  if (isProcessDump(head)) return 'dump';
  if (hasFastSerializationHeader(head, 0)) {
    // NetPerf streams are bare FastSerialization too; their first object (tags 04 04 01, two i32
    // versions, i32 name length at 35) is "Trace" (v3) or "…EventPipeFile" (v1/v2).
    const firstType = ascii(head, 39, Math.max(0, Math.min(64, head[35] ?? 0)));
    return firstType === 'Trace' || firstType === 'Microsoft.DotNet.Runtime.EventPipeFile' ? 'nettrace' : 'gcdump';
  }
  if (looksLikeCfHeapLog(head)) return 'cf-heaplog';
  return 'unknown';
}

/** Compact Framework heap log: lines of `<letter> <fields...>` with hex numbers. */
function looksLikeCfHeapLog(head: Uint8Array): boolean {
  let text = '';
  const end = Math.min(head.length, DETECT_BYTES);
  for (let i = 0; i < end; i++) {
    const c = head[i];
    if (c === 0) return false;
    text += String.fromCharCode(c);
  }
  if (text.charCodeAt(0) === 0xef) text = text.slice(3); // UTF-8 BOM
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0);
  if (lines.length === 0) return false;
  const first = lines[0];
  // The version is a small decimal-looking number ("2"): "a bad idea" in a text file is not a header.
  if (/^a\s+\d{1,3}\s+\S+/.test(first)) return true;
  // A log whose section header was cut off: require several well-formed records.
  // `c NAME` / `a 2 NAME` count too: a cut-off head may start at the end of one AppDomain section.
  const record = /^(t\s+[0-9a-fA-F]+\s+\S|o\s+[0-9a-fA-F]+\s+[0-9a-fA-F]+\s+[0-9a-fA-F]+|r\s+[0-9a-fA-F]+\s+[0-9a-fA-F]+\s+[0-9a-fA-F]+|c\s+\S|a\s+\d{1,3}\s+\S)/;
  const sample = lines.slice(0, 20);
  const good = sample.filter((l) => record.test(l)).length;
  return sample.length >= 3 && good >= Math.ceil(sample.length * 0.8);
}

const ET_CORE = 4;
const MH_CORE = 4;

/** ELF core, Windows minidump or Mach-O core, by header (the file type, not just the magic). */
function isProcessDump(h: Uint8Array): boolean {
  if (ascii(h, 0, 4) === 'MDMP') return true;
  if (h.length >= 18 && h[0] === 0x7f && ascii(h, 1, 3) === 'ELF') {
    // e_type at 16, in the byte order EI_DATA (byte 5) says: 1 little-endian, 2 big-endian.
    const type = h[5] === 2 ? (h[16] << 8) | h[17] : h[16] | (h[17] << 8);
    return type === ET_CORE;
  }
  if (h.length >= 16) {
    const magic = (h[0] | (h[1] << 8) | (h[2] << 16) | (h[3] << 24)) >>> 0;
    // MH_MAGIC / MH_MAGIC_64 as written little-endian; filetype is the u32 at 12.
    if (magic === 0xfeedface || magic === 0xfeedfacf) {
      const filetype = (h[12] | (h[13] << 8) | (h[14] << 16) | (h[15] << 24)) >>> 0;
      return filetype === MH_CORE;
    }
  }
  return false;
}
