import { Window } from 'happy-dom';
import { describe, expect, it } from 'vitest';
import { analyzeDominance } from '../../../../../shared/analysis/analyze.js';
import { renderSuspectsHtml } from '../../../../../shared/analysis/suspects/render-html.js';
import { renderSuspectsMarkdown } from '../../../../../shared/analysis/suspects/render-markdown.js';
import { html, md, visible } from '../../../../../shared/analysis/suspects/report-text.js';
import { buildSuspectsReport, suspectsBaselineOf } from '../../../../../shared/analysis/suspects/suspects-report.js';
import { tinyGraph } from '../../../../helpers/graph-builder.js';

/**
 * The HTML and Markdown renderings: well-formed, self-contained (nothing fetched), every name
 * from the file escaped, and the same figures in both.
 */
const HOSTILE = '<script>alert(1)</script>&amp;"\'|*_[x](http://evil.example/)\u0007\u001b[2J\u202e\n# heading\ud800';

function hostileHeap() {
  return tinyGraph((b) => {
    b.root('[static vars]').ref(`[static var ${HOSTILE}.F]`);
    b.root(`[static var ${HOSTILE}.F]`).ref('Big');
    b.node('Big', 40, HOSTILE).ref('Arr');
    b.node('Arr', 100, `${HOSTILE}[]`).ref('E1', 'E2', 'E3');
    for (const e of ['E1', 'E2', 'E3']) b.node(e, 50, 'Elem<T>');
    b.root('[local vars]').ref('Other');
    b.node('Other', 10, '-1. list');
  });
}

function report(withBaseline = false) {
  const t = hostileHeap();
  const a = analyzeDominance(t.graph);
  const baseline = withBaseline ? suspectsBaselineOf(t.graph, a, `base ${HOSTILE}`) : null;
  return buildSuspectsReport(t.graph, a, { fileName: `${HOSTILE}.gcdump`, baseline });
}

/** A strict check of the markup we write: every tag closed in order, void elements known. */
function tagBalance(text: string): string[] {
  const VOID = new Set(['meta', 'br', 'hr', 'img', 'input', 'link']);
  const stack: string[] = [];
  const errors: string[] = [];
  for (const m of text.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>/g)) {
    const [, close, name] = m;
    const tag = name.toLowerCase();
    if (VOID.has(tag)) continue;
    if (!close) stack.push(tag);
    else if (stack.pop() !== tag) errors.push(`unbalanced </${tag}> at ${m.index}`);
  }
  if (stack.length) errors.push(`unclosed: ${stack.join(',')}`);
  return errors;
}

describe('escaping helpers', () => {
  it('visible: control, bidi and lone surrogate characters as escapes', () => {
    expect(visible('a\u0007b\nc\u202ed\ud800e\u{1f600}')).toBe('a\\x07b\\nc\\u{202e}d\\u{d800}e\u{1f600}');
  });
  it('html and md', () => {
    expect(html(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;');
    expect(md('List<T> | *x* [a](b) & `c` #1')).toBe('List\\<T\\> \\| \\*x\\* \\[a\\](b) \\& \\`c\\` \\#1');
    expect(md('-x')).toBe('\\-x');
    expect(md('12. x')).toBe('12\\. x');
  });
});

describe('renderSuspectsHtml', () => {
  const r = report(true);
  const text = renderSuspectsHtml(r);

  it('is well-formed, has no script, no URL and no external resource', () => {
    expect(tagBalance(text)).toEqual([]);
    expect(text.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
    expect(text).not.toMatch(/<script|<link|<img|<iframe|\bsrc=|\bhref=|url\(|@import/i);
    expect(text).not.toMatch(/https?:\/\/(?!evil)/); // the only URL-like text is the escaped hostile name
    expect(text).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
  });

  it('parses in happy-dom to the expected sections with every name shown as written', () => {
    const w = new Window();
    w.document.write(text);
    const d = w.document;
    expect(d.querySelectorAll('script').length).toBe(0);
    expect([...d.querySelectorAll('h2')].map((h) => h.id)).toEqual(['snapshot', 'suspects', 'inspections', 'generations', 'growth']);
    const suspects = d.querySelectorAll('section.suspect');
    expect(suspects.length).toBe(1);
    // the name reads back exactly as `visible` writes it: no markup was interpreted
    expect(suspects[0].querySelector('h3 .name')!.textContent).toBe(visible(HOSTILE));
    expect(d.querySelector('title')!.textContent).toBe(`Leak suspects: ${visible(HOSTILE)}.gcdump`);
    expect(d.querySelectorAll('a').length).toBe(0);
    const path = [...suspects[0].querySelectorAll('ol.path li .name')].map((e) => e.textContent);
    expect(path).toEqual(['[root]', visible(`[static var ${HOSTILE}.F]`), visible(HOSTILE)]);
    w.close();
  });

  it('no raw control character or lone surrogate reaches the file', () => {
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]|[\ud800-\udbff](?![\udc00-\udfff])/);
  });

  it('is deterministic', () => {
    expect(renderSuspectsHtml(report(true))).toBe(text);
  });
});

describe('renderSuspectsMarkdown', () => {
  const r = report(true);
  const text = renderSuspectsMarkdown(r);

  it('carries the same sections and figures as the HTML', () => {
    expect(text.split('\n').filter((l) => l.startsWith('## '))).toEqual([
      '## Snapshot',
      '## Biggest retainers (at least 10.00% of the reachable bytes: 30 bytes)',
      '## Inspections',
      '## Generations',
      `## Growth since ${md(`base ${HOSTILE}`)}`,
    ]);
    // Big retains 40 + 100 + 150 = 290 of 300 reachable bytes; its array 250 ≥ 70% of 290, an element 50 < 70% of 250
    expect(text).toContain('Retains **290 bytes** (96.67% of the reachable bytes); shallow size 40 bytes.');
    expect(renderSuspectsHtml(r)).toContain('Retains <b>290 bytes</b> (96.67% of the reachable bytes); shallow size 40 bytes.');
    expect(text).toContain(`- Accumulation point: ${md(HOSTILE + '[]')} 0x`);
    expect(text).toContain(', 1 level down the dominator tree, retains 250 bytes (83.33%).');
    expect(text).toContain(`- It keeps 3 objects alive directly, mostly Elem\\<T\\> (3, retaining 150 bytes).`);
  });

  it('escapes every name: no raw markup, one line per name', () => {
    expect(text).not.toContain('<script>');
    expect(text).not.toMatch(/[^\\][[]x\]/); // no unescaped link text
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
    expect(text.split('\n').some((l) => l.startsWith('# heading'))).toBe(false);
    expect(text).toContain(`### 1. ${md(HOSTILE)} `);
  });
});
