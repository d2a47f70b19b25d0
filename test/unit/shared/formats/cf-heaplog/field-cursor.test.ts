import { describe, expect, it } from 'vitest';
import { decodeText, FieldCursor, hexId } from '../../../../../shared/formats/cf-heaplog/field-cursor.js';

const cursor = (s: string): FieldCursor => {
  const c = new FieldCursor();
  const b = new TextEncoder().encode(s);
  c.reset(b, 0, b.length);
  return c;
};

describe('FieldCursor', () => {
  it('reads hex fields of 1–16 digits into halves, either case', () => {
    const c = cursor('  7c79f\tFFFFFFFFFFFFFFFF 0 123456789aBcDeF0  \r');
    expect([c.hex(), c.lo, c.hi]).toEqual([true, 0x7c79f, 0]);
    expect([c.hex(), c.lo, c.hi]).toEqual([true, 0xffffffff, 0xffffffff]);
    expect([c.hex(), c.value()]).toEqual([true, 0]);
    expect([c.hex(), c.lo, c.hi]).toEqual([true, 0x9abcdef0, 0x12345678]);
    expect(c.atEnd()).toBe(true);
    expect(c.hex()).toBe(false);
  });

  it('rejects non-hex fields, 0x prefixes and more than 16 digits', () => {
    expect(cursor('12g4').hex()).toBe(false);
    expect(cursor('0x10').hex()).toBe(false);
    expect(cursor('1'.repeat(17)).hex()).toBe(false);
    expect(cursor('-1').hex()).toBe(false);
  });

  it('returns the rest of a line with inner blanks and field ranges', () => {
    const c = cursor('2 System.Collections.Generic.Dictionary`2[[A, B]]  ');
    c.hex();
    expect(c.rest()).toBe('System.Collections.Generic.Dictionary`2[[A, B]]');
    const d = cursor('2 my app 763f9d2');
    const r: number[] = [];
    expect(d.fieldRanges(r)).toBe(4);
    expect(r).toEqual([0, 1, 2, 4, 5, 8, 9, 16]);
  });

  it('formats ids and decodes text', () => {
    expect(hexId(0x1ce056, 0)).toBe('0x1ce056');
    expect(hexId(1, 0x7ff6)).toBe('0x7ff600000001');
    expect(decodeText(new Uint8Array([0xc3, 0xa4, 0x41]), 0, 3)).toBe('äA');
    expect(decodeText(new Uint8Array([0xe4, 0x41]), 0, 2)).toBe('äA'); // invalid UTF-8 → Latin-1
    expect(decodeText(new Uint8Array([0xf0, 0x9f, 0x98, 0x80]), 0, 4)).toBe('😀');
    expect(decodeText(new Uint8Array([0xc3]), 0, 1)).toBe('Ã'); // cut sequence → Latin-1
  });
});
