// @vitest-environment happy-dom
import { createTestingPinia } from '@pinia/testing';
import { mount } from '@vue/test-utils';
import { describe, expect, it, vi } from 'vitest';
import GridToolbar from '../../../../../renderer/components/grids/GridToolbar.vue';

// The row count above a grid agrees with its number: a filter that leaves one type says
// "1 type", not "1 types" (issue 14 item 8).
describe('GridToolbar row count', () => {
  const total = (n: number, rowNoun?: string) =>
    mount(GridToolbar, { props: { title: 'Types', total: n, rowNoun }, global: { plugins: [createTestingPinia({ createSpy: vi.fn })] } })
      .get('[data-testid="grid-total"]')
      .text();

  it('uses the singular for one row', () => {
    expect(total(1, 'types')).toBe('1 type');
    expect(total(1, 'objects')).toBe('1 object');
    expect(total(1)).toBe('1 row');
  });
  it('keeps the plural otherwise', () => {
    expect(total(0, 'types')).toBe('0 types');
    expect(total(6481, 'objects')).toBe('6,481 objects');
  });
});
