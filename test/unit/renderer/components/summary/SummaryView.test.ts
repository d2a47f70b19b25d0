// @vitest-environment happy-dom
import { createTestingPinia } from '@pinia/testing';
import { mount } from '@vue/test-utils';
import { describe, expect, it, vi } from 'vitest';
import SummaryView from '../../../../../renderer/components/summary/SummaryView.vue';
import { fileEntry, summaryOf } from '../../fake-client';

function render(over: Parameters<typeof summaryOf>[2]) {
  const summary = summaryOf('s1', fileEntry('a.gcdump'), over);
  return mount(SummaryView, { props: { summary }, global: { plugins: [createTestingPinia({ createSpy: vi.fn })] } });
}

describe('SummaryView object counts', () => {
  it('shows reachable OBJECTS, and the nodes that are not objects apart (perfview_test1: 6,481 objects, 1 pseudo-node)', () => {
    const w = render({
      nodeCount: 6482,
      objects: { count: 6481, size: 1_009_270 },
      pseudoNodeCount: 1,
      undefinedNodeCount: 0,
      analysis: { state: 'done', error: null, ms: 10 },
      reachable: { count: 6481, size: 1_009_270 },
      unreachable: { count: 0, size: 0 },
      unreachableFrozen: { count: 0, size: 0 },
    });
    expect(w.get('[data-testid="summary-objects"]').text()).toBe('6,481');
    expect(w.get('[data-testid="summary-non-objects"]').text()).toBe('not counting 1 pseudo-node and 0 undefined nodes');
    expect(w.get('[data-testid="summary-reachable"]').text()).toBe('6,481 objects · 100.0 %');
    expect(w.find('[data-testid="summary-unreachable"]').exists()).toBe(false);
    expect(w.find('[data-testid="summary-frozen"]').exists()).toBe(false);
  });

  it('says garbage and frozen objects apart: frozen ones are never collected', () => {
    const w = render({
      objects: { count: 1000, size: 100_000 },
      pseudoNodeCount: 0,
      undefinedNodeCount: 0,
      analysis: { state: 'done', error: null, ms: 10 },
      reachable: { count: 900, size: 90_000 },
      unreachable: { count: 60, size: 6000 },
      unreachableFrozen: { count: 40, size: 4000 },
    });
    expect(w.find('[data-testid="summary-non-objects"]').exists()).toBe(false);
    expect(w.get('[data-testid="summary-unreachable"]').text()).toBe('unreachable (garbage or weakly held): 60 objects, 5.86 KB');
    const frozen = w.get('[data-testid="summary-frozen"]');
    expect(frozen.text()).toBe('frozen (non-GC heap), no root: 40 objects, 3.91 KB');
    expect(frozen.attributes('title')).toContain('never collects them');
  });

  it('words counts of one in the singular (issue 14 item 8)', () => {
    const w = render({
      nodeCount: 1,
      edgeCount: 1,
      objects: { count: 1, size: 24 },
      pseudoNodeCount: 0,
      undefinedNodeCount: 1,
      analysis: { state: 'done', error: null, ms: 1 },
      reachable: { count: 1, size: 24 },
      unreachable: { count: 1, size: 24 },
      unreachableFrozen: { count: 1, size: 24 },
      problems: { total: 1, counts: { 'undefined-node': 1 }, entries: [] },
    });
    expect(w.get('[data-testid="summary-non-objects"]').text()).toBe('not counting 0 pseudo-nodes and 1 undefined node');
    expect(w.get('[data-testid="summary-reachable"]').text()).toBe('1 object · 100.0 %');
    expect(w.get('[data-testid="summary-unreachable"]').text()).toBe('unreachable (garbage or weakly held): 1 object, 24 bytes');
    expect(w.get('[data-testid="summary-frozen"]').text()).toBe('frozen (non-GC heap), no root: 1 object, 24 bytes');
    expect(w.get('[data-testid="summary-problems"]').text()).toBe('⚠ 1 problem');
    expect(w.text()).toContain('1 node · 1 reference');
  });
});
