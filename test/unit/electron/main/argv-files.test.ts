import { describe, expect, it } from 'vitest';
import { filesFromArgv } from '../../../../electron/main/argv-files.js';

// The Electron main's argv rules (main.ts: first start and second-instance), run under Node.
describe('filesFromArgv', () => {
  it('packaged: everything after the executable that is not a flag, resolved against cwd', () => {
    expect(filesFromArgv(['/opt/Heapscope/heapscope', 'a.gcdump', '--foo', '/data/b.nettrace', '-psn_0_12345'], { packaged: true, cwd: '/home/u' })).toEqual([
      '/home/u/a.gcdump',
      '/data/b.nettrace',
    ]);
  });

  it("unpackaged: skips electron and the app dir/script (npm start's argv)", () => {
    expect(filesFromArgv(['/x/electron', '/repo', '--open-sample', 'dumps/c.gcdump'], { packaged: false, cwd: '/repo' })).toEqual(['/repo/dumps/c.gcdump']);
    expect(filesFromArgv(['/x/electron', '/repo/out/main/main.js'], { packaged: false, cwd: '/repo' })).toEqual([]);
    expect(filesFromArgv(['/x/electron', '--inspect', '.', 'd.gcdump'], { packaged: false, cwd: '/w' })).toEqual(['/w/d.gcdump']);
  });

  it("a second instance's relative paths resolve against its own working directory", () => {
    const argv = ['/opt/Heapscope/heapscope', '--allow-file-access-from-files', './leak.gcdump', '../other/x.gcdump'];
    expect(filesFromArgv(argv, { packaged: true, cwd: '/home/u/project' })).toEqual(['/home/u/project/leak.gcdump', '/home/u/other/x.gcdump']);
  });

  it('after -- every argument is a file; a file named twice opens once', () => {
    expect(filesFromArgv(['/app', 'a.gcdump', '--', '-odd.gcdump', '--', 'a.gcdump'], { packaged: true, cwd: '/d' })).toEqual(['/d/a.gcdump', '/d/-odd.gcdump', '/d/--']);
  });
});
