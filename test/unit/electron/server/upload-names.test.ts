import { describe, expect, it } from 'vitest';
import { AppError, FormatError } from '../../../../shared/errors.js';
import { uploadError, uploadFileName } from '../../../../electron/server/upload-names.js';
import { hidePaths, hidePathsInResult } from '../../../../electron/server/hide-paths.js';

describe('upload names', () => {
  it.each([
    ['dump.gcdump', 'dump.gcdump'],
    ['..', 'upload.gcdump'],
    ['.', 'upload.gcdump'],
    ['...', 'upload.gcdump'],
    ['', 'upload.gcdump'],
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\x.nettrace', 'x.nettrace'],
    ['C:\\Users\\me\\heap.gcdump', 'heap.gcdump'],
    ['.hidden.gcdump', 'hidden.gcdump'],
    ['a/..', 'upload.gcdump'],
    ['we;ird$name.gcdump', 'we_ird_name.gcdump'],
    ['   ', 'upload.gcdump'],
  ])('%j is stored as %j', (name, stored) => {
    expect(uploadFileName(name)).toBe(stored);
  });

  it('caps a long name at 200 characters', () => {
    expect(uploadFileName('x'.repeat(500))).toHaveLength(200);
  });
});

describe('upload errors', () => {
  const work = '/tmp/heapscope-serve-abc123';

  it('a raw fs error (no code of ours) becomes io/read-failed without its message', () => {
    const fsError = Object.assign(new Error(`EISDIR: illegal operation on a directory, open '${work}/uploads'`), { code: 'EISDIR' });
    expect(uploadError(fsError, work, 'upload.gcdump')).toEqual({ code: 'io/read-failed', message: 'the upload upload.gcdump could not be stored' });
  });

  it('a coded error keeps its code; paths under the work directory become the upload name', () => {
    const e = new AppError('io/read-failed', `${work}/uploads/0a1b/x.gcdump is not a regular file`);
    expect(uploadError(e, work, 'x.gcdump')).toEqual({ code: 'io/read-failed', message: 'x.gcdump is not a regular file' });
    const q = new AppError('io/denied', `permission denied: '${work}/uploads/0a1b/x.gcdump' and ${work}`);
    expect(uploadError(q, work, 'x.gcdump')).toEqual({ code: 'io/denied', message: "permission denied: 'x.gcdump' and x.gcdump" });
  });

  it('keeps the detail of a format error', () => {
    const e = new FormatError('format/unknown', 'x.gcdump is not a .gcdump', { offset: 0 });
    expect(uploadError(e, work, 'x.gcdump')).toEqual({ code: 'format/unknown', message: 'x.gcdump is not a .gcdump', detail: { offset: 0 } });
  });
});

describe('hidePaths', () => {
  const work = '/tmp/heapscope-serve-abc123';

  it('replaces each path under the work directory by its last component, leaving other paths alone', () => {
    expect(hidePaths(`ENOTDIR: not a directory, mkdir '${work}/exports/9f8e'`, work)).toBe("ENOTDIR: not a directory, mkdir '9f8e'");
    expect(hidePaths(`copy ${work}/uploads/aa/x.gcdump to ${work}/exports/bb/x.gcdump failed`, work)).toBe('copy x.gcdump to x.gcdump failed');
    expect(hidePaths('no such file: /home/me/dumps/a.gcdump', work)).toBe('no such file: /home/me/dumps/a.gcdump');
    expect(hidePaths(`the directory ${work} itself`, work)).toBe('the directory heapscope-serve-abc123 itself');
  });

  it('only error results change', () => {
    expect(hidePathsInResult({ ok: true, value: `${work}/x` }, work)).toEqual({ ok: true, value: `${work}/x` });
    expect(hidePathsInResult({ ok: false, error: { code: 'io/denied', message: `permission denied: ${work}/uploads/a/b.gcdump`, detail: { offset: 1 } } }, work)).toEqual({
      ok: false,
      error: { code: 'io/denied', message: 'permission denied: b.gcdump', detail: { offset: 1 } },
    });
  });
});
