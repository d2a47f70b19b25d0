import { describe, expect, it } from 'vitest';
import {
  collectTracing2,
  collectTracing6,
  decodeHeader,
  decodeProcessInfo,
  decodeResponse,
  decodeSessionId,
  DEFAULT_RUNDOWN_KEYWORD,
  HEAP_SNAPSHOT_KEYWORDS,
  hresultName,
  processInfo,
  ProcessCommand,
  RUNTIME_PROVIDER,
  SAMPLE_PROFILER_PROVIDER,
  stopTracing,
} from '../../../../shared/diagnostics/ipc-messages.js';

// Expected bytes are transcribed from diagnostics-ipc.md §8 (cross-checked there against the C# client).
const hex = (s: string) => Uint8Array.from(s.trim().split(/\s+/).map((b) => parseInt(b, 16)));
const utf16z = (s: string) => {
  const out: number[] = [];
  for (const ch of s) out.push(ch.charCodeAt(0), 0);
  out.push(0, 0);
  return out;
};
const MAGIC = '44 4f 54 4e 45 54 5f 49 50 43 5f 56 31 00';

describe('diagnostics IPC request encoding (spec §8)', () => {
  it('type-flush session: CollectTracing2, 127 bytes', () => {
    const msg = collectTracing2({ bufferMB: 1024, requestRundown: false, providers: [{ name: SAMPLE_PROFILER_PROVIDER, keywords: 0xf00000000000n, level: 4 }] });
    const expected = [
      ...hex(`${MAGIC} 7f 00 02 03 00 00 00 04 00 00 01 00 00 00 00 01 00 00 00 00 00 00 00 00 f0 00 00 04 00 00 00 24 00 00 00`),
      ...utf16z(SAMPLE_PROFILER_PROVIDER),
      ...hex('01 00 00 00 00 00'),
    ];
    expect(msg.length).toBe(127);
    expect(Array.from(msg)).toEqual(expected);
  });

  it('heap-snapshot fallback: CollectTracing2 with rundown, 119 bytes', () => {
    const msg = collectTracing2({ bufferMB: 1024, requestRundown: true, providers: [{ name: RUNTIME_PROVIDER, keywords: HEAP_SNAPSHOT_KEYWORDS, level: 5 }] });
    const expected = [
      ...hex(`${MAGIC} 77 00 02 03 00 00 00 04 00 00 01 00 00 00 01 01 00 00 00 01 00 98 01 00 00 00 00 05 00 00 00 20 00 00 00`),
      ...utf16z(RUNTIME_PROVIDER),
      ...hex('01 00 00 00 00 00'),
    ];
    expect(msg.length).toBe(119);
    expect(Array.from(msg)).toEqual(expected);
  });

  it('heap-snapshot session: CollectTracing6 in Block mode, 140 bytes', () => {
    const msg = collectTracing6({
      bufferMB: 1024,
      rundownKeyword: DEFAULT_RUNDOWN_KEYWORD,
      requestStackwalk: true,
      blocking: true,
      providers: [{ name: RUNTIME_PROVIDER, keywords: HEAP_SNAPSHOT_KEYWORDS, level: 5 }],
    });
    const expected = [
      ...hex(`${MAGIC} 8c 00 02 07 00 00 00 00 00 00 00 04 00 00 01 00 00 00 39 01 02 80 00 00 00 00 01 01 00 00 00 01 00 98 01 00 00 00 00 05 00 00 00 20 00 00 00`),
      ...utf16z(RUNTIME_PROVIDER),
      ...hex('01 00 00 00 00 00 00 00 00 00 00 01 00 00 00'),
    ];
    expect(msg.length).toBe(140);
    expect(Array.from(msg)).toEqual(expected);
  });

  it('StopTracing (28 bytes) and ProcessInfo (20 bytes)', () => {
    expect(Array.from(stopTracing(0x0102030405060708n))).toEqual([...hex(`${MAGIC} 1c 00 02 01 00 00 08 07 06 05 04 03 02 01`)]);
    expect(Array.from(processInfo())).toEqual([...hex(`${MAGIC} 14 00 04 00 00 00`)]);
  });
});

describe('diagnostics IPC response decoding', () => {
  it('reads OK with a session id and Error with an HRESULT', () => {
    const ok = hex(`${MAGIC} 1c 00 ff 00 00 00 2a 00 00 00 00 00 00 00`);
    const h = decodeHeader(ok)!;
    expect(h).toEqual({ size: 28, commandSet: 0xff, commandId: 0 });
    const r = decodeResponse(h, ok.subarray(20));
    expect(r.ok).toBe(true);
    expect(decodeSessionId(r.payload)).toBe(42n);
    const err = hex(`${MAGIC} 18 00 ff ff 00 00 85 13 13 80`);
    const e = decodeResponse(decodeHeader(err)!, err.subarray(20));
    expect(e.ok).toBe(false);
    if (!e.ok) {
      expect(e.hresult).toBe(0x80131385);
      expect(hresultName(e.hresult)).toBe('unknown command');
    }
    expect(decodeHeader(hex('00 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19'))).toBeNull();
  });

  it('decodes ProcessInfo2 fields in wire order and tolerates a short payload', () => {
    const parts: number[] = [];
    const u32 = (v: number) => parts.push(v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >>> 24) & 0xff);
    const str = (s: string) => {
      u32(s.length + 1);
      parts.push(...utf16z(s));
    };
    u32(1234);
    u32(0); // pid as u64
    for (let i = 0; i < 16; i++) parts.push(i); // cookie
    str('dotnet app.dll');
    str('Linux');
    str('x64');
    str('app');
    str('10.0.0');
    const info = decodeProcessInfo(Uint8Array.from(parts), ProcessCommand.ProcessInfo2);
    expect(info).toEqual({ processId: 1234, commandLine: 'dotnet app.dll', os: 'Linux', arch: 'x64', entrypointAssembly: 'app', clrVersion: '10.0.0', runtimeIdentifier: null });
    const short = decodeProcessInfo(Uint8Array.from(parts.slice(0, 30)), ProcessCommand.ProcessInfo2);
    expect(short.processId).toBe(1234);
    expect(short.commandLine).toBeNull();
  });
});
