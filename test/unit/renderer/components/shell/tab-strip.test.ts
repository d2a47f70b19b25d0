import { describe, expect, it } from 'vitest';
import { middleEllipsis, scrollToShow, tabLabel, tabTooltip } from '../../../../../renderer/components/shell/tab-strip';

const file = (name: string, displayPath: string) => ({ name, displayPath }) as never;

describe('tab labels', () => {
  it('short titles stay whole; long ones keep both ends', () => {
    expect(tabLabel('perfview_test1.gcdump')).toBe('perfview_test1.gcdump');
    expect(tabLabel('mono_android_20231108_150515_31024.gcdump')).toBe('mono_andro…150515_31024.gcdump');
    expect(tabLabel('mono_android_20231108_150644_31024.gcdump')).toBe('mono_andro…150644_31024.gcdump');
    expect(middleEllipsis('abcdefghij', 5)).toBe('a…hij');
  });
  it('two AppDomain sections of one CF log get distinct labels: the domain stays whole, the file name gives way', () => {
    const a = tabLabel('device_heap_20240517_101500.log — Contoso.Scanner.exe');
    const b = tabLabel('device_heap_20240517_101500.log — Contoso.Scanner.Plugin');
    expect(a).toBe('de…0.log — Contoso.Scanner.exe');
    expect(b).toBe('de…0.log — Contoso.Scanner.Plugin');
    expect(a).not.toBe(b);
    // a domain longer than its share is shortened in the middle too
    expect(tabLabel('heap.log — A.Very.Long.Application.Domain.Name')).toBe('heap.log — A.Very.…on.Domain.Name');
  });
  it('tooltips start with the whole title, so tabs of one file differ', () => {
    const f = file('heap.log', '/data/logs/heap.log');
    const a = tabTooltip({ title: 'heap.log — MainDomain', file: f, process: null }, 'Ready');
    const b = tabTooltip({ title: 'heap.log — section 1', file: f, process: null }, 'Ready');
    expect(a).toBe('heap.log — MainDomain\n/data/logs/heap.log\nReady');
    expect(b).toBe('heap.log — section 1\n/data/logs/heap.log\nReady');
    expect(tabTooltip({ title: 'GCs · app (pid 7)', file: null, process: { pid: 7, name: 'app' } as never }, 'monitoring GCs')).toBe('GCs · app (pid 7)\nprocess 7 (app)\nmonitoring GCs');
  });
});

describe('scrollToShow', () => {
  it('leaves a visible tab alone and moves least to show a hidden one', () => {
    expect(scrollToShow(200, 150, 100, 600)).toBe(100); // in view
    expect(scrollToShow(50, 150, 100, 600)).toBe(50); // left of view: its start at the left edge
    expect(scrollToShow(900, 150, 100, 600)).toBe(450); // right of view: its end at the right edge
    expect(scrollToShow(900, 700, 100, 600)).toBe(900); // wider than the view: its start
  });
});
