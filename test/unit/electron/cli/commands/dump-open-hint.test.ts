import { describe, expect, it } from 'vitest';
import { shellWord } from '../../../../../electron/cli/commands/dump.js';

// `heapscope dump` prints "open it with: heapscope report FILE": the path must paste as one word.
describe('shellWord (the path in heapscope dump\'s open hint)', () => {
  it('leaves a plain path alone', () => {
    expect(shellWord('/tmp/hs/LeakyApp_42_20261125_171144.dmp')).toBe('/tmp/hs/LeakyApp_42_20261125_171144.dmp');
  });

  it('quotes spaces and shell characters, and escapes a single quote', () => {
    expect(shellWord('/home/me/My Dumps/a.dmp')).toBe("'/home/me/My Dumps/a.dmp'");
    expect(shellWord('/tmp/$x;y.dmp')).toBe("'/tmp/$x;y.dmp'");
    expect(shellWord("/tmp/it's.dmp")).toBe("'/tmp/it'\\''s.dmp'");
  });
});
