import { describe, expect, it } from 'vitest';
import { AppError } from '../../../../../shared/errors.js';
import { answerError, parseAnswerLine, threadFlags, type DumpThread } from '../../../../../shared/formats/dump/dump-queries.js';

/** The pure half of the dump queries: reading the helper's answer lines, naming thread flags. */
describe('dump query answers', () => {
  it('parses an answer line; a line that is not a JSON object is the helper misbehaving (dump/helper-crashed)', () => {
    expect(parseAnswerLine('{"id":3,"ok":true,"result":{"a":1}}')).toEqual({ id: 3, ok: true, result: { a: 1 } });
    for (const bad of ['Unhandled exception. System.AccessViolationException', '42', 'null']) {
      const e = (() => {
        try {
          parseAnswerLine(bad);
          return null;
        } catch (x) {
          return x as AppError;
        }
      })();
      expect([e?.code, e?.message]).toEqual(['dump/helper-crashed', `the dump reader wrote a line that is not an answer: ${bad}`]);
    }
  });

  it('keeps the documented codes of a failed answer, the DAC name as detail.file, and maps unknown codes to dump/query-failed', () => {
    const dac = answerError({ ok: false, error: { code: 'dump/dac-missing', message: 'no DAC', detail: 'libmscordaccore.so' } });
    expect([dac.code, dac.message, dac.detail]).toEqual(['dump/dac-missing', 'no DAC', { file: 'libmscordaccore.so' }]);
    const nf = answerError({ ok: false, error: { code: 'object/not-found', message: 'nothing at 0x10' } });
    expect([nf.code, nf.message, nf.detail]).toEqual(['object/not-found', 'nothing at 0x10', undefined]);
    const odd = answerError({ ok: false, error: { code: 'weird/code', message: 'hm' } });
    expect([odd.code, odd.message]).toEqual(['dump/query-failed', 'hm']);
    expect(answerError({ ok: false }).message).toBe('the dump query failed');
  });

  it('names thread flags as the CLI and the Threads view show them', () => {
    const t = (p: Partial<DumpThread>) => ({ background: false, finalizer: false, gc: false, threadPool: false, alive: true, ...p }) as DumpThread;
    expect(threadFlags(t({}))).toBe('foreground');
    expect(threadFlags(t({ background: true, finalizer: true }))).toBe('background, finalizer');
    expect(threadFlags(t({ background: true, gc: true, threadPool: true, alive: false }))).toBe('background, GC, thread pool, dead');
  });
});
