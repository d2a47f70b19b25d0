import { describe, expect, it } from 'vitest';
import { channelOf, HEAPSCOPE_EVENTS, HEAPSCOPE_METHODS, isEventName, isMethodName, MENU_COMMANDS } from '../../../../shared/ipc/methods.js';
import { err, isResult, ok, toResult, unwrap } from '../../../../shared/ipc/result.js';
import { AppError } from '../../../../shared/errors.js';

// The compile-time check (methods.ts: MissingMethods) makes tsc fail when the list and the
// HeapscopeApi interface disagree; these tests pin the runtime side.
describe('method and event lists', () => {
  it('are duplicate-free and derive distinct channels', () => {
    expect(new Set(HEAPSCOPE_METHODS).size).toBe(HEAPSCOPE_METHODS.length);
    expect(new Set(HEAPSCOPE_EVENTS).size).toBe(HEAPSCOPE_EVENTS.length);
    expect(new Set(MENU_COMMANDS).size).toBe(MENU_COMMANDS.length);
    expect(new Set(HEAPSCOPE_METHODS.map(channelOf)).size).toBe(HEAPSCOPE_METHODS.length);
    expect(channelOf('typeRows')).toBe('heapscope:typeRows');
  });

  it('recognises only listed names (no prototype keys)', () => {
    expect(isMethodName('typeRows')).toBe(true);
    expect(isMethodName('constructor')).toBe(false);
    expect(isMethodName('__proto__')).toBe(false);
    expect(isEventName('session-closed')).toBe(true);
    expect(isEventName('toString')).toBe(false);
  });
});

describe('Result helpers', () => {
  it('wrap values and coded errors, never rejecting', async () => {
    expect(await toResult(() => 42)).toEqual(ok(42));
    expect(await toResult(() => {
      throw new AppError('io/not-found', 'gone');
    })).toEqual(err({ code: 'io/not-found', message: 'gone' }));
    expect(await toResult(() => {
      throw new TypeError('oops');
    })).toMatchObject({ ok: false, error: { code: 'bug' } });
    expect(() => unwrap(err({ code: 'cancelled', message: 'stop' }))).toThrow(expect.objectContaining({ code: 'cancelled' }));
    expect(isResult({ ok: true, value: undefined })).toBe(true);
    expect(isResult(JSON.parse(JSON.stringify({ ok: true, value: undefined })))).toBe(true); // Result<void> after JSON
    expect(isResult({ ok: false, error: { code: 1 } })).toBe(false);
  });
});
