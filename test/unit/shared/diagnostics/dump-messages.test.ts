import { describe, expect, it } from 'vitest';
import {
  decodeDumpResponse,
  describeDumpHresult,
  DumpCommand,
  DumpFlags,
  DumpType,
  DUMP_COMMANDS_NEWEST_FIRST,
  generateCoreDump,
} from '../../../../shared/diagnostics/dump-messages.js';
import { decodeHeader, decodeResponse } from '../../../../shared/diagnostics/ipc-messages.js';

// Byte layouts written out by hand from ds-dump-protocol.c / DiagnosticsClient.CreateWriteDumpMessage:
// header (magic, u16 size, set 0x01, id, u16 reserved), then string dumpName, u32 dumpType, u32 flags.
const hex = (s: string) => Array.from(s.trim().split(/\s+/), (b) => parseInt(b, 16));
const MAGIC = '44 4f 54 4e 45 54 5f 49 50 43 5f 56 31 00';
// "/tmp/a.dmp": 10 UTF-16 units + NUL = 11 units
const NAME = '0b 00 00 00 2f 00 74 00 6d 00 70 00 2f 00 61 00 2e 00 64 00 6d 00 70 00 00 00';

const response = (bytes: number[]) => {
  const b = Uint8Array.from(bytes);
  const h = decodeHeader(b)!;
  return decodeResponse(h, b.subarray(20, h.size));
};

describe('GenerateCoreDump request encoding', () => {
  it('GenerateCoreDump3, WithHeap, no flags: 54 bytes', () => {
    const msg = generateCoreDump(DumpCommand.GenerateCoreDump3, '/tmp/a.dmp', DumpType.WithHeap);
    expect(Array.from(msg)).toEqual(hex(`${MAGIC} 36 00 01 03 00 00 ${NAME} 02 00 00 00 00 00 00 00`));
  });

  it('GenerateCoreDump2, Full, logging + crash report flags', () => {
    const msg = generateCoreDump(DumpCommand.GenerateCoreDump2, '/tmp/a.dmp', DumpType.Full, DumpFlags.LoggingEnabled | DumpFlags.CrashReportEnabled);
    expect(Array.from(msg)).toEqual(hex(`${MAGIC} 36 00 01 02 00 00 ${NAME} 04 00 00 00 05 00 00 00`));
  });

  it('GenerateCoreDump (v1) carries the logging flag as a u32 too', () => {
    const msg = generateCoreDump(DumpCommand.GenerateCoreDump, '/x', DumpType.Normal, DumpFlags.LoggingEnabled);
    expect(Array.from(msg)).toEqual(hex(`${MAGIC} 26 00 01 01 00 00 03 00 00 00 2f 00 78 00 00 00 01 00 00 00 01 00 00 00`));
  });

  it('non-ASCII path characters are UTF-16 code units', () => {
    const msg = generateCoreDump(DumpCommand.GenerateCoreDump3, '/é', DumpType.Triage);
    expect(Array.from(msg.subarray(20))).toEqual(hex('03 00 00 00 2f 00 e9 00 00 00 03 00 00 00 00 00 00 00'));
  });

  it('commands are tried newest first', () => {
    expect(DUMP_COMMANDS_NEWEST_FIRST).toEqual([3, 2, 1]);
  });
});

describe('GenerateCoreDump response decoding', () => {
  it('OK with a u32 status', () => {
    expect(decodeDumpResponse(response(hex(`${MAGIC} 18 00 ff 00 00 00 00 00 00 00`)), DumpCommand.GenerateCoreDump3)).toEqual({ kind: 'ok' });
  });

  it('unknown command (0x80131385) means: try the older command', () => {
    const r = response(hex(`${MAGIC} 18 00 ff ff 00 00 85 13 13 80`));
    expect(decodeDumpResponse(r, DumpCommand.GenerateCoreDump3)).toEqual({ kind: 'unknown-command' });
  });

  it('GenerateCoreDump3 error: HRESULT then the runtime message', () => {
    // E_FAIL, "bad" (3 units + NUL): payload 4 + 4 + 8 = 16, message 36 = 0x24 bytes
    const r = response(hex(`${MAGIC} 24 00 ff ff 00 00 05 40 00 80 04 00 00 00 62 00 61 00 64 00 00 00`));
    expect(decodeDumpResponse(r, DumpCommand.GenerateCoreDump3)).toEqual({ kind: 'error', hresult: 0x80004005, message: 'bad' });
  });

  it('GenerateCoreDump3 error with an empty message string', () => {
    const r = response(hex(`${MAGIC} 1e 00 ff ff 00 00 05 40 00 80 01 00 00 00 00 00`));
    expect(decodeDumpResponse(r, DumpCommand.GenerateCoreDump3)).toEqual({ kind: 'error', hresult: 0x80004005, message: null });
  });

  it('a message whose length runs past the payload is dropped, not read out of bounds', () => {
    const r = response(hex(`${MAGIC} 20 00 ff ff 00 00 05 40 00 80 09 00 00 00 62 00 61 00`));
    expect(decodeDumpResponse(r, DumpCommand.GenerateCoreDump3)).toEqual({ kind: 'error', hresult: 0x80004005, message: null });
  });

  it('older commands answer with the bare HRESULT', () => {
    const r = response(hex(`${MAGIC} 18 00 ff ff 00 00 15 15 13 80`));
    expect(decodeDumpResponse(r, DumpCommand.GenerateCoreDump2)).toEqual({ kind: 'error', hresult: 0x80131515, message: null });
  });

  it('HRESULTs are named where known', () => {
    expect(describeDumpHresult(0x80004005)).toBe('0x80004005 (E_FAIL)');
    expect(describeDumpHresult(0x80131515)).toBe('0x80131515 (not supported)');
    expect(describeDumpHresult(0x8000ffff)).toBe('0x8000ffff');
  });
});
