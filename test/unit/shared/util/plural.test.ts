import { describe, expect, it } from 'vitest';
import { noun, plural, pluralIsAre, pluralWasWere } from '../../../../shared/util/plural';

describe('plural', () => {
  it('uses the singular for exactly one and the plural otherwise', () => {
    expect(plural(0, 'type')).toBe('0 types');
    expect(plural(1, 'type')).toBe('1 type');
    expect(plural(2, 'type')).toBe('2 types');
    expect(plural(-1, 'byte')).toBe('-1 byte');
    expect(plural(1234567, 'object')).toBe('1,234,567 objects');
    expect(plural(1.5, 'GC')).toBe('1.5 GCs');
  });
  it('takes an irregular plural', () => {
    expect(plural(1, 'entry', 'entries')).toBe('1 entry');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
    expect(noun(1, 'is', 'are')).toBe('is');
    expect(noun(7, 'is', 'are')).toBe('are');
  });
  it('agrees the verb with the count', () => {
    expect(pluralIsAre(1, 'node')).toBe('1 node is');
    expect(pluralIsAre(2, 'node')).toBe('2 nodes are');
    expect(pluralWasWere(1, 'reference')).toBe('1 reference was');
    expect(pluralWasWere(1000, 'reference')).toBe('1,000 references were');
  });
});
