import type { Finding } from '../inspections/index.js';
import { count, definitions, delta, html, KIND_LABELS, pct } from './report-text.js';
import { PATH_HEAD, type ReportPath, type Suspect, type SuspectsReport } from './suspects-report.js';

/**
 * The leak-suspects report as one self-contained HTML file: inline CSS, no script, no image, no
 * link to anything (a Content-Security-Policy of `default-src 'none'` makes sure the browser
 * fetches nothing even if a name slipped through), so it opens offline in any browser and can be
 * mailed or attached to a ticket. Every name from the file goes through `html`. Deterministic: a
 * pure function of the model.
 */
const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;padding:0 16px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:15px;margin:16px 0 4px}
table{border-collapse:collapse;margin:6px 0 12px}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.name{font-family:ui-monospace,Consolas,monospace;overflow-wrap:anywhere}.muted{color:#57606a}
section.card{border:1px solid #d0d7de;border-radius:6px;padding:8px 14px;margin:10px 0}
ol.path{margin:4px 0;padding-left:28px}ol.path li.pseudo{color:#57606a}
.defs{font-size:13px;color:#57606a}
`;

export function renderSuspectsHtml(r: SuspectsReport): string {
  const out: string[] = [];
  const s = r.summary;
  out.push(
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>Leak suspects: ${html(r.file)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    `<h1>Leak suspects: <span class="name">${html(r.file)}</span></h1>`,
    '<ul class="defs">',
    ...definitions(r.thresholdPercent, r.bigDropPercent).map((d) => `<li>${html(d)}</li>`),
    '</ul>',
  );

  out.push('<h2 id="snapshot">Snapshot</h2>', '<table>');
  const rows: [string, string, boolean][] = [
    ['File', r.file, false],
    ['Format', [s.format, s.formatVersion, s.creationTool ? `written by ${s.creationTool}` : null].filter(Boolean).join(', '), false],
    ['Process', s.processName ?? '—', false],
    ['Collected', s.timeCollected ?? '—', false],
    ['Objects', count(s.objects), true],
    ['Object bytes', count(s.objectBytes), true],
    ['Reachable objects', count(s.reachableObjects), true],
    ['Reachable bytes', count(s.reachableBytes), true],
    ['Unreachable objects', count(s.unreachableObjects), true],
    ['Unreachable bytes', count(s.unreachableBytes), true],
    ['Types', count(s.types), true],
    ['References', count(s.references), true],
  ];
  for (const [k, v, num] of rows) out.push(`<tr><th>${k}</th><td${num ? ' class="n"' : ''}>${html(v)}</td></tr>`);
  out.push('</table>');

  out.push(`<h2 id="suspects">Biggest retainers (at least ${pct(r.thresholdPercent)} of the reachable bytes: ${count(r.thresholdBytes)} bytes)</h2>`);
  if (r.suspects.length === 0) out.push('<p>No single object retains that much.</p>');
  else {
    out.push(`<p>${count(r.suspectCount)} ${r.suspectCount === 1 ? 'object retains' : 'objects retain'} at least the threshold; the ${count(r.suspects.length)} listed retain ${count(r.suspectBytes)} bytes.</p>`);
    for (const x of r.suspects) suspect(out, x);
  }

  out.push('<h2 id="inspections">Inspections</h2>');
  if (r.findings.length === 0) out.push('<p>No finding.</p>');
  for (const f of r.findings) finding(out, f);
  if (r.largeHeapShare) {
    const h = r.largeHeapShare;
    out.push(`<p>Large object heap: ${count(h.lohObjects)} objects, ${count(h.lohBytes)} bytes; pinned object heap: ${count(h.pohObjects)} objects, ${count(h.pohBytes)} bytes; of ${count(h.heapBytes)} heap bytes.</p>`);
  }
  if (r.unavailable.length) out.push('<ul class="muted">', ...r.unavailable.map((u) => `<li>Not checked: ${html(u.reason)}</li>`), '</ul>');

  out.push('<h2 id="generations">Generations</h2>');
  const gen = r.generations;
  if (gen.rows) {
    out.push('<table>', '<tr><th>Generation</th><th class="n">Objects</th><th class="n">Bytes</th></tr>');
    for (const g of gen.rows) out.push(`<tr><td>${html(g.name)}</td><td class="n">${count(g.count)}</td><td class="n">${count(g.bytes)}</td></tr>`);
    out.push('</table>');
  } else out.push(`<p>No generation breakdown: ${html(gen.message ?? '')}.</p>`);
  out.push(`<p>Objects of at least ${count(gen.largeBySize.threshold)} bytes (the large-object-heap threshold): ${count(gen.largeBySize.count)}, ${count(gen.largeBySize.bytes)} bytes.</p>`);

  if (r.growth) {
    const g = r.growth;
    out.push(`<h2 id="growth">Growth since <span class="name">${html(g.baseline)}</span></h2>`, '<table>');
    out.push('<tr><th></th><th class="n">Baseline</th><th class="n">This snapshot</th><th class="n">Change</th></tr>');
    out.push(`<tr><th>Objects</th><td class="n">${count(g.baselineObjects)}</td><td class="n">${count(s.objects)}</td><td class="n">${delta(g.objectsDelta)}</td></tr>`);
    out.push(`<tr><th>Reachable bytes</th><td class="n">${count(g.baselineReachableBytes)}</td><td class="n">${count(s.reachableBytes)}</td><td class="n">${delta(g.reachableBytesDelta)}</td></tr>`);
    out.push('</table>');
    if (g.findings.length === 0) out.push('<p>No type or static field retains more than in the baseline.</p>');
    for (const f of g.findings) finding(out, f);
  }
  out.push('</body>', '</html>', '');
  return out.join('\n');
}

function suspect(out: string[], x: Suspect): void {
  out.push('<section class="card suspect">', `<h3>${x.rank}. <span class="name">${html(x.type)}</span> <span class="muted">${html(x.address)}</span></h3>`);
  out.push(`<p>Retains <b>${count(x.retainedSize)} bytes</b> (${pct(x.percentOfReachable)} of the reachable bytes); shallow size ${count(x.shallowSize)} bytes.</p>`, '<ul>');
  const p = x.accumulationPoint;
  if (p.depth === 0) out.push('<li>Accumulation point: the object itself.</li>');
  else
    out.push(
      `<li>Accumulation point: <span class="name">${html(p.type)}</span> <span class="muted">${html(p.address)}</span>, ${count(p.depth)} ${p.depth === 1 ? 'level' : 'levels'} down the dominator tree, retains ${count(p.retainedSize)} bytes (${pct(p.percentOfReachable)}).</li>`,
    );
  if (p.childCount > 0) out.push(`<li>It keeps ${count(p.childCount)} ${p.childCount === 1 ? 'object' : 'objects'} alive directly, mostly <span class="name">${html(p.elementType ?? '')}</span> (${count(p.elementCount)}, retaining ${count(p.elementRetained)} bytes).</li>`);
  out.push(`<li>Shortest path from the root (${count(x.path.length)} ${x.path.length === 1 ? 'reference' : 'references'}):`);
  pathList(out, x.path);
  out.push('</li>', '</ul>', '</section>');
}

function pathList(out: string[], p: ReportPath): void {
  out.push('<ol class="path">');
  p.steps.forEach((st, i) => {
    const n = i < PATH_HEAD ? i + 1 : i + 1 + p.elidedSteps;
    const field = st.field ? ` <span class="muted">(field ${html(st.field)})</span>` : '';
    const where = st.pseudo ? '' : ` <span class="muted">${html(st.address)}, ${count(st.selfSize)} bytes</span>`;
    out.push(`<li value="${n}"${st.pseudo ? ' class="pseudo"' : ''}><span class="name">${html(st.typeName)}</span>${where}${field}</li>`);
    if (i === PATH_HEAD - 1 && p.elidedSteps > 0) out.push(`<li class="pseudo" value="${n + 1}">… ${count(p.elidedSteps)} steps left out …</li>`);
  });
  out.push('</ol>');
}

function finding(out: string[], f: Finding): void {
  out.push('<section class="card finding">', `<h3>${html(KIND_LABELS[f.kind] ?? f.kind)}: <span class="name">${html(f.title)}</span></h3>`);
  out.push(`<p>${count(f.objects)} objects, <b>${count(f.bytes)} bytes retained</b> (exact), ${count(f.shallowBytes)} bytes shallow.</p>`);
  out.push(`<p>${html(f.explanation)} <i>Fix: ${html(f.fix)}</i></p>`);
  if (f.examples.length) {
    out.push('<ul>');
    for (const e of f.examples) out.push(`<li><span class="name">${html(e.type)}</span> <span class="muted">${html(e.address)}</span>: ${count(e.retainedSize)} bytes retained</li>`);
    out.push('</ul>');
  }
  out.push('</section>');
}
