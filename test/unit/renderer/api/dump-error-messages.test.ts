import { describe, expect, it } from 'vitest';
import { describeError } from '../../../../renderer/api/error-messages.js';

describe('error titles for process dumps', () => {
  it('gives each dump error its own headline, the back end message as detail', () => {
    expect(describeError({ code: 'dump/dac-missing', message: 'cannot load libmscordaccore.so', detail: { file: 'libmscordaccore.so' } })).toEqual({
      code: 'dump/dac-missing',
      title: 'The .NET runtime this dump was taken with is not installed here',
      detail: 'cannot load libmscordaccore.so',
    });
    for (const code of ['dump/helper-missing', 'dump/no-clr', 'dump/helper-crashed', 'dump/corrupt']) {
      expect(describeError({ code, message: 'x' }).title).not.toBe('Something went wrong');
    }
  });
});
