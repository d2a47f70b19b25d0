// @vitest-environment happy-dom
import { createTestingPinia } from '@pinia/testing';
import { flushPromises, mount } from '@vue/test-utils';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Generations } from '../../../../../shared/ipc/contract';
import { setClient } from '../../../../../renderer/api/heapscope-client';
import GenerationsView from '../../../../../renderer/components/generations/GenerationsView.vue';
import { fakeClient, fileEntry, summaryOf, type FakeClient } from '../../fake-client';

let client: FakeClient;
beforeEach(() => {
  client = fakeClient();
  setClient(client);
});

const row = (generation: string, count: number, size: number) => ({ generation, count, size, sizePercent: (size / 1000) * 100, topTypes: [] });

async function render(rows: Generations['rows']) {
  vi.mocked(client.generations).mockResolvedValue({ hasData: true, message: null, rows, largeBySize: { count: 0, size: 0, threshold: 85_000 }, objects: { count: 10, size: 1000 } });
  const w = mount(GenerationsView, { props: { docId: 'd1', summary: summaryOf('s1', fileEntry('a.gcdump'), { hasGenerations: true }) }, global: { plugins: [createTestingPinia({ createSpy: vi.fn })] } });
  await flushPromises();
  return w;
}

describe('GenerationsView: frozen (non-GC heap)', () => {
  it('lists the frozen row by name and explains it', async () => {
    const w = await render([row('gen2', 6, 600), row('unknown', 0, 0), row('frozen (non-GC heap)', 4, 400)]);
    const table = w.get('[data-testid="generations-table"]').text();
    expect(table).toContain('frozen (non-GC heap)');
    expect(w.get('[data-testid="generations-frozen-note"]').text()).toContain('never moves or collects them');
  });

  it('says nothing about frozen objects when there are none', async () => {
    const w = await render([row('gen2', 10, 1000), row('unknown', 0, 0), row('frozen (non-GC heap)', 0, 0)]);
    expect(w.find('[data-testid="generations-frozen-note"]').exists()).toBe(false);
  });
});
