// @vitest-environment happy-dom
import { createTestingPinia } from '@pinia/testing';
import { flushPromises, mount } from '@vue/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { setClient } from '../../../../renderer/api/heapscope-client';
import WelcomeView from '../../../../renderer/views/WelcomeView.vue';
import { fakeClient, fileEntry } from '../fake-client';

// Recent files show when the user opened each file, not the file's modification time (issue 14 item 8).
describe('WelcomeView recent files', () => {
  it('says when the file was opened, with the modification time only on hover', async () => {
    const client = fakeClient();
    setClient(client);
    const opened = new Date(2023, 10, 14, 9, 30).getTime();
    const written = new Date(2020, 0, 2, 8, 0).getTime();
    const when = (ms: number) => new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
    vi.mocked(client.appInfo).mockResolvedValue({ version: 't', mode: 'browser', platform: 'linux', canPickFile: false, canTypePath: true, uploadsDroppedFiles: true, sample: null });
    vi.mocked(client.listFiles).mockResolvedValue({ commandLine: [], sample: null, recent: [{ ...fileEntry('a.gcdump', 2048), source: 'recent', modifiedMs: written, openedAt: opened }] });
    const w = mount(WelcomeView, { global: { plugins: [createTestingPinia({ createSpy: vi.fn, stubActions: false })] } });
    await flushPromises();
    const line = w.get('[data-testid="recent-file"] .fsize');
    expect(line.text()).toBe(`2.00 KB · opened ${when(opened)}`);
    expect(line.attributes('title')).toBe(`file last modified ${when(written)}`);
  });
});
