/**
 * Text helpers the report renderers share: names from a file made safe for HTML and Markdown,
 * and numbers formatted the same way on every machine (no locale, no ICU).
 *
 * Type names, field names and file names are input: a crafted file can put `<script>`, `&`,
 * Markdown syntax, control characters, bidirectional overrides or lone surrogates in them.
 * `visible` first writes every control character, line/paragraph separator, bidi override or
 * isolate and lone surrogate as a visible escape (`\n`, `\x1b`, `\u{202e}`), so one name stays one
 * line and shows as itself; `html` and `md` then escape what their syntax gives meaning to.
 */
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function visible(s: string): string {
  return s.replace(UNSAFE, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    if (c === '\t') return '\\t';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML element content and quoted attribute values. */
export function html(s: string): string {
  return visible(s).replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]);
}

/**
 * Text for Markdown (CommonMark / GFM), inline or in a table cell: every ASCII punctuation
 * character that can start markup is backslash-escaped (CommonMark allows a backslash before any
 * ASCII punctuation), so `List<T>`, `a|b` and `*x*` show as written and nothing becomes a link,
 * an HTML tag, an entity or a table column. Parentheses stay: with `[` `]` escaped they open no
 * link. A leading `-` or `1.` is escaped too, since names often start a list item.
 */
export function md(s: string): string {
  return visible(s)
    .replace(/[\\`*_{}[\]<>#+!|~&]/g, (c) => '\\' + c)
    .replace(/^-/, '\\-') // at the start of a list item a name could open a nested list …
    .replace(/^(\d+)([.)])/, '$1\\$2'); // … or an ordered one
}

/** 1234567 → "1,234,567" (integers; others are rounded). */
export function count(n: number): string {
  const neg = n < 0;
  const digits = String(Math.round(Math.abs(n)));
  return (neg ? '-' : '') + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** A signed change: "+1,024", "-3", "0". */
export function delta(n: number): string {
  return n > 0 ? '+' + count(n) : count(n);
}

/** 12.5 → "12.50%". */
export function pct(p: number): string {
  return p.toFixed(2) + '%';
}

export const KIND_LABELS: Record<string, string> = {
  'event-handler-leak': 'Event-handler leak',
  'timer-held': 'Timer-held',
  finalization: 'Finalization',
  'accumulation-point': 'Accumulation point',
  'growth-type': 'Growth (type)',
  'growth-static': 'Growth (static field)',
  'growth-retainer': 'Growth (retainer, heuristic match)',
  'static-field': 'Static field',
  'large-objects': 'Large objects',
  'sparse-arrays': 'Sparse arrays (heuristic)',
  'empty-arrays': 'Empty arrays',
  'empty-collections': 'Empty collections',
};

/** The definitions printed at the top of every rendering (kept in one place so md and HTML agree). */
export function definitions(thresholdPercent: number, bigDropPercent: number): string[] {
  return [
    'Retained size: the exact number of bytes that would be freed if the object went away (computed from the dominator tree).',
    `Biggest retainers: the top-most heap objects of the dominator tree (only synthetic nodes such as the root, a root category or a static-variable holder above them) that each retain at least ${thresholdPercent}% of the reachable bytes; they never overlap.`,
    `Accumulation point: from the retainer, walk down the dominator tree to its largest child while that child retains at least ${bigDropPercent}% of the current object; where the walk stops, the memory spreads over many smaller objects (a heuristic, as in Eclipse MAT).`,
    'Shortest path: a shortest chain of strong references from the root to the retainer (weak handles never count).',
  ];
}
