import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findEndpoint, listDotnetProcesses, startTimeKey } from '../../../../electron/diagnostics/endpoints.js';

// A socket file left by a dead .NET process whose pid was reused must not make the new process
// look like .NET. The runtime names its socket with its start time; only that key counts.
describe.skipIf(process.platform !== 'linux')('diagnostic endpoint discovery (Linux)', () => {
  const saved = process.env.TMPDIR;
  let dir = '';
  afterEach(() => {
    // assigning undefined would store the string "undefined" (CI has no TMPDIR)
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('skips a socket whose key is not the live process start time, and takes the one that is', async () => {
    dir = mkdtempSync(join(tmpdir(), 'heapscope-ep-'));
    process.env.TMPDIR = dir;
    const key = await startTimeKey(process.pid);
    expect(key).toMatch(/^\d+$/);
    const stale = join(dir, `dotnet-diagnostic-${process.pid}-${Number(key) + 1}-socket`);
    writeFileSync(stale, '');
    expect(await findEndpoint(process.pid)).toBeNull();
    expect((await listDotnetProcesses()).map((p) => p.pid)).not.toContain(process.pid);

    const live = join(dir, `dotnet-diagnostic-${process.pid}-${key}-socket`);
    writeFileSync(live, '');
    expect(await findEndpoint(process.pid)).toBe(live);
    expect((await listDotnetProcesses()).find((p) => p.pid === process.pid)?.endpoint).toBe(live);
  });
});
