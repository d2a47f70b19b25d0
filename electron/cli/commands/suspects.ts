import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { buildSuspectsReport, DEFAULT_THRESHOLD_PERCENT, renderSuspectsHtml, renderSuspectsMarkdown, suspectsBaselineOf, type SuspectsBaseline, type SuspectsReport } from '../../../shared/analysis/suspects/index.js';
import { mapFsError } from '../../files/file-byte-source.js';
import { flag, UsageError, type ParsedArgs } from '../args.js';
import { loadAnalyzed } from '../analyzed-snapshot.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { DOMAIN_FLAG, selectOf } from '../load.js';
import { escapeControl } from '../terminal-text.js';

/**
 * `heapscope suspects FILE [--baseline BASE] [--format html|md|json] [-o OUT] [--threshold PCT]`:
 * the leak-suspects report (shared/analysis/suspects): snapshot summary, the biggest retainers
 * with their accumulation points and shortest paths, the inspections, the generation breakdown
 * and, with a baseline, growth. HTML is one self-contained file; Markdown and JSON carry the same
 * content. The output is deterministic (no time stamp), so reports can be compared.
 */
export const SUSPECTS_FORMATS = ['html', 'md', 'json'] as const;
type SuspectsFormat = (typeof SUSPECTS_FORMATS)[number];

export const suspectsCommand: CliCommand = {
  name: 'suspects',
  summary: 'Write the leak-suspects report (biggest retainers, accumulation points, paths, inspections, generations, growth) as HTML, Markdown or JSON.',
  usage: 'heapscope suspects FILE [--baseline BASE] [--format html|md|json] [-o OUT] [--threshold PCT] [--domain NAME|INDEX]',
  details: [
    'Biggest retainers: the top-most heap objects of the dominator tree (only the root, root categories',
    '  and static-variable holders above them) retaining at least PCT% of the reachable bytes each',
    `  (--threshold, default ${DEFAULT_THRESHOLD_PERCENT}; a number above 0 and at most 100). At most 20 are listed.`,
    'Accumulation point (heuristic, as Eclipse MAT): from the retainer, step to its largest dominator-tree',
    '  child while that child retains at least 70% of the current object; where it stops is the point.',
    'Path: a shortest chain of strong references from the root to the retainer.',
    'Inspections: the 5 largest findings per inspection (heapscope inspect). --baseline adds growth.',
    '--format defaults to the extension of -o (.md, .json, else html); without -o the report goes to',
    '  standard output. Deterministic: no time stamp, the same file gives the same bytes.',
  ].join('\n'),
  flags: {
    baseline: { value: true },
    format: { value: true, choices: SUSPECTS_FORMATS },
    output: { value: true, short: 'o' },
    threshold: { value: true },
    domain: DOMAIN_FLAG,
  },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('suspects takes exactly one FILE');
    const out = flag(args, 'output');
    const format = formatOf(args, out);
    const thresholdPercent = thresholdOf(args);
    const input = args.positionals[0];
    if (out !== undefined && resolve(out) === resolve(input)) throw new UsageError('the output file must differ from the input file');
    const baselinePath = flag(args, 'baseline');
    let baseline: SuspectsBaseline | null = null;
    if (baselinePath !== undefined) {
      // reduced to per-type and per-field figures first, so only one graph is held at a time
      const b = await loadAnalyzed(baselinePath, io.stderr, selectOf(args));
      baseline = suspectsBaselineOf(b.graph, b.analysis, b.name);
    }
    const s = await loadAnalyzed(input, io.stderr, selectOf(args));
    const report = buildSuspectsReport(s.graph, s.analysis, { fileName: s.name, thresholdPercent, baseline });
    const text = renderSuspects(report, format);
    if (out === undefined) {
      io.stdout.write(text);
      return EXIT_OK;
    }
    try {
      await writeFile(out, text, 'utf8');
    } catch (e) {
      throw mapFsError(e, out);
    }
    io.stdout.write(`${escapeControl(out)}: ${report.suspects.length} ${report.suspects.length === 1 ? 'suspect' : 'suspects'}, ${report.findings.length} ${report.findings.length === 1 ? 'finding' : 'findings'}, ${Buffer.byteLength(text)} bytes\n`);
    return EXIT_OK;
  },
};

export function renderSuspects(report: SuspectsReport, format: SuspectsFormat): string {
  if (format === 'json') return JSON.stringify(report, null, 2) + '\n';
  if (format === 'md') return renderSuspectsMarkdown(report);
  return renderSuspectsHtml(report);
}

function formatOf(args: ParsedArgs, out: string | undefined): SuspectsFormat {
  const given = flag(args, 'format') as SuspectsFormat | undefined;
  if (given) return given;
  const ext = out?.toLowerCase().match(/\.([a-z]+)$/)?.[1];
  return ext === 'md' || ext === 'markdown' ? 'md' : ext === 'json' ? 'json' : 'html';
}

function thresholdOf(args: ParsedArgs): number {
  const v = flag(args, 'threshold');
  if (v === undefined) return DEFAULT_THRESHOLD_PERCENT;
  const p = /^\d+(\.\d+)?$/.test(v) ? Number(v) : NaN;
  if (!(p > 0 && p <= 100)) throw new UsageError(`--threshold must be a percentage above 0 and at most 100 (got "${v}")`);
  return p;
}
