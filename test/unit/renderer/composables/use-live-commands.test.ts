import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestingPinia } from '@pinia/testing';
import { AppError } from '../../../../shared/errors';
import { setClient } from '../../../../renderer/api/heapscope-client';
import { useDocumentsStore } from '../../../../renderer/stores/documents';
import { useTabsStore } from '../../../../renderer/stores/tabs';
import { useProcessPicker, writeProcessDump } from '../../../../renderer/composables/use-live-commands';
import { fakeClient, fileEntry, type FakeClient } from '../fake-client';

// "Full dump" in the process picker: one captureDump call, the outcome in the message banner.
let client: FakeClient;

beforeEach(() => {
  createTestingPinia({ createSpy: vi.fn, stubActions: false });
  client = fakeClient();
  setClient(client);
  vi.mocked(client.appInfo).mockResolvedValue({} as never);
  vi.mocked(client.listFiles).mockResolvedValue({ commandLine: [], recent: [], sample: null });
});

const proc = { pid: 42, name: 'LeakyApp', runtimeVersion: '10.0.0', commandLine: 'dotnet LeakyApp.dll', note: null };

describe('writeProcessDump (process picker → Full dump)', () => {
  it('asks for a heap dump of the pid, reports the file and its size, refreshes Recent files, opens the dump in a tab', async () => {
    const file = { ...fileEntry('LeakyApp_42_20261125_171144.dmp', 92_827_648), displayPath: '/cfg/captures/LeakyApp_42_20261125_171144.dmp', source: 'capture' as const };
    vi.mocked(client.captureDump).mockResolvedValue({ file, kind: 'heap', pid: 42, bytes: 92_827_648, ms: 800 });
    vi.mocked(client.open).mockReturnValue(new Promise(() => {})); // the load itself is not under test here
    const picker = useProcessPicker();
    picker.open('capture');
    await picker.dump(proc);
    expect(picker.picker.value).toBeNull();
    expect(client.captureDump).toHaveBeenCalledWith({ pid: 42 });
    expect(client.listFiles).toHaveBeenCalledTimes(1);
    const docs = useDocumentsStore();
    expect(docs.messages.map((m) => [m.kind, m.title])).toEqual([
      ['info', 'Writing a process dump of LeakyApp (pid 42)…'],
      [
        'info',
        'Process dump of LeakyApp (pid 42) written: /cfg/captures/LeakyApp_42_20261125_171144.dmp (88.5 MB), listed under Recent files and opened in a new tab.',
      ],
    ]);
    // the written dump opens as a file tab: one open() of the captured file's token
    expect(client.open).toHaveBeenCalledTimes(1);
    expect(vi.mocked(client.open).mock.calls[0][0]).toMatchObject({ fileToken: file.token });
    const tabs = useTabsStore();
    expect(tabs.order).toHaveLength(1);
    expect(docs.docs[tabs.activeId!]).toMatchObject({ kind: 'file', title: 'LeakyApp_42_20261125_171144.dmp', file: { displayPath: file.displayPath } });
  });

  it('a refusal is shown as an error with its coded title', async () => {
    vi.mocked(client.captureDump).mockRejectedValue(new AppError('dump/refused', 'the runtime of process 42 refused to write the dump, HRESULT 0x80004005 (E_FAIL)'));
    await writeProcessDump(proc);
    const last = useDocumentsStore().messages.at(-1)!;
    expect(last.kind).toBe('error');
    expect(last.title).toBe('The .NET runtime refused to write the dump');
    expect(last.detail).toContain('HRESULT 0x80004005 (E_FAIL)');
    expect(client.listFiles).not.toHaveBeenCalled();
  });
});
