/** The leak-suspects report: the model (pure) and its Markdown and HTML renderings. */
export { buildSuspectsReport, suspectsBaselineOf, DEFAULT_THRESHOLD_PERCENT, REPORT_VERSION } from './suspects-report.js';
export type { ReportAccumulationPoint, ReportGrowth, ReportObject, ReportPath, ReportSummary, Suspect, SuspectsBaseline, SuspectsOptions, SuspectsReport } from './suspects-report.js';
export { accumulationPoint, BIG_DROP_PERCENT, type AccumulationPoint } from './accumulation-point.js';
export { biggestRetainers } from './biggest-retainers.js';
export { renderSuspectsHtml } from './render-html.js';
export { renderSuspectsMarkdown } from './render-markdown.js';
