import type { Finding } from '../inspections/index.js';
import { count, definitions, delta, KIND_LABELS, md, pct } from './report-text.js';
import { PATH_HEAD, type ReportPath, type Suspect, type SuspectsReport } from './suspects-report.js';

/**
 * The leak-suspects report as Markdown (GFM tables): the same sections and figures as the HTML
 * (render-html.ts), every name escaped by `md`. Deterministic: a pure function of the model.
 */
export function renderSuspectsMarkdown(r: SuspectsReport): string {
  const out: string[] = [];
  const s = r.summary;
  out.push(`# Leak suspects: ${md(r.file)}`, '');
  out.push(...definitions(r.thresholdPercent, r.bigDropPercent).map((d) => `- ${d}`), '');

  out.push('## Snapshot', '', '| | |', '|---|--:|');
  const rows: [string, string][] = [
    ['File', md(r.file)],
    ['Format', md([s.format, s.formatVersion, s.creationTool ? `written by ${s.creationTool}` : null].filter(Boolean).join(', '))],
    ['Process', md(s.processName ?? '—')],
    ['Collected', md(s.timeCollected ?? '—')],
    ['Objects', count(s.objects)],
    ['Object bytes', count(s.objectBytes)],
    ['Reachable objects', count(s.reachableObjects)],
    ['Reachable bytes', count(s.reachableBytes)],
    ['Unreachable objects', count(s.unreachableObjects)],
    ['Unreachable bytes', count(s.unreachableBytes)],
    ['Types', count(s.types)],
    ['References', count(s.references)],
  ];
  for (const [k, v] of rows) out.push(`| ${k} | ${v} |`);
  out.push('');

  out.push(`## Biggest retainers (at least ${pct(r.thresholdPercent)} of the reachable bytes: ${count(r.thresholdBytes)} bytes)`, '');
  if (r.suspects.length === 0) out.push('No single object retains that much.', '');
  else {
    out.push(`${count(r.suspectCount)} ${r.suspectCount === 1 ? 'object retains' : 'objects retain'} at least the threshold; the ${count(r.suspects.length)} listed retain ${count(r.suspectBytes)} bytes.`, '');
    for (const x of r.suspects) suspect(out, x);
  }

  out.push('## Inspections', '');
  if (r.findings.length === 0) out.push('No finding.', '');
  for (const f of r.findings) finding(out, f);
  if (r.largeHeapShare) {
    const h = r.largeHeapShare;
    out.push(`Large object heap: ${count(h.lohObjects)} objects, ${count(h.lohBytes)} bytes; pinned object heap: ${count(h.pohObjects)} objects, ${count(h.pohBytes)} bytes; of ${count(h.heapBytes)} heap bytes.`, '');
  }
  for (const u of r.unavailable) out.push(`- Not checked: ${md(u.reason)}`);
  if (r.unavailable.length) out.push('');

  out.push('## Generations', '');
  const gen = r.generations;
  if (gen.rows) {
    out.push('| Generation | Objects | Bytes |', '|---|--:|--:|');
    for (const g of gen.rows) out.push(`| ${md(g.name)} | ${count(g.count)} | ${count(g.bytes)} |`);
    out.push('');
  } else out.push(`No generation breakdown: ${md(gen.message ?? '')}.`, '');
  out.push(`Objects of at least ${count(gen.largeBySize.threshold)} bytes (the large-object-heap threshold): ${count(gen.largeBySize.count)}, ${count(gen.largeBySize.bytes)} bytes.`, '');

  if (r.growth) {
    const g = r.growth;
    out.push(`## Growth since ${md(g.baseline)}`, '');
    out.push('| | Baseline | This snapshot | Change |', '|---|--:|--:|--:|');
    out.push(`| Objects | ${count(g.baselineObjects)} | ${count(s.objects)} | ${delta(g.objectsDelta)} |`);
    out.push(`| Reachable bytes | ${count(g.baselineReachableBytes)} | ${count(s.reachableBytes)} | ${delta(g.reachableBytesDelta)} |`, '');
    if (g.findings.length === 0) out.push('No type or static field retains more than in the baseline.', '');
    for (const f of g.findings) finding(out, f);
  }
  return out.join('\n');
}

function suspect(out: string[], x: Suspect): void {
  out.push(`### ${x.rank}. ${md(x.type)} ${md(x.address)}`, '');
  out.push(`Retains **${count(x.retainedSize)} bytes** (${pct(x.percentOfReachable)} of the reachable bytes); shallow size ${count(x.shallowSize)} bytes.`, '');
  const p = x.accumulationPoint;
  if (p.depth === 0) out.push(`- Accumulation point: the object itself.`);
  else out.push(`- Accumulation point: ${md(p.type)} ${md(p.address)}, ${count(p.depth)} ${p.depth === 1 ? 'level' : 'levels'} down the dominator tree, retains ${count(p.retainedSize)} bytes (${pct(p.percentOfReachable)}).`);
  if (p.childCount > 0) out.push(`- It keeps ${count(p.childCount)} ${p.childCount === 1 ? 'object' : 'objects'} alive directly, mostly ${md(p.elementType ?? '')} (${count(p.elementCount)}, retaining ${count(p.elementRetained)} bytes).`);
  out.push(`- Shortest path from the root (${count(x.path.length)} ${x.path.length === 1 ? 'reference' : 'references'}):`, '');
  pathLines(out, x.path);
  out.push('');
}

function pathLines(out: string[], p: ReportPath): void {
  p.steps.forEach((st, i) => {
    const field = st.field ? ` (field ${md(st.field)})` : '';
    const where = st.pseudo ? '' : ` ${md(st.address)}, ${count(st.selfSize)} bytes`;
    out.push(`  ${i < PATH_HEAD ? i + 1 : i + 1 + p.elidedSteps}. ${md(st.typeName)}${where}${field}`);
    if (i === PATH_HEAD - 1 && p.elidedSteps > 0) out.push('', `  … ${count(p.elidedSteps)} steps left out …`, '');
  });
}

function finding(out: string[], f: Finding): void {
  out.push(`### ${md(KIND_LABELS[f.kind] ?? f.kind)}: ${md(f.title)}`, '');
  out.push(`${count(f.objects)} objects, **${count(f.bytes)} bytes retained** (exact), ${count(f.shallowBytes)} bytes shallow.`, '');
  out.push(`${md(f.explanation)} Fix: ${md(f.fix)}`, '');
  for (const e of f.examples) out.push(`- ${md(e.type)} ${md(e.address)}: ${count(e.retainedSize)} bytes retained`);
  if (f.examples.length) out.push('');
}
