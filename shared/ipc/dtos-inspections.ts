import type { SessionReq } from './dtos-session.js';

/**
 * The Insights view: the inspections of one session (shared/analysis/inspections), the same
 * findings `heapscope inspect --format json` prints. A finding list is small (top N per
 * inspection), so it crosses whole, not as a window.
 */
export interface InspectionsReq extends SessionReq {
  /** Findings kept per inspection, largest first (1–1000; default 10). */
  top?: number;
}

export interface InspectionExampleDto {
  node: number;
  address: string;
  type: string;
  retainedSize: number;
}

export interface InspectionFindingDto {
  kind: string;
  title: string;
  explanation: string;
  fix: string;
  objects: number;
  /** Exact retained bytes, no object counted twice within one inspection. */
  bytes: number;
  shallowBytes: number;
  examples: InspectionExampleDto[];
  details: Record<string, string | number | boolean | null>;
}

export interface Inspections {
  findings: InspectionFindingDto[];
  largeHeapShare: { heapBytes: number; lohObjects: number; lohBytes: number; pohObjects: number; pohBytes: number } | null;
  unavailable: { kind: string; title: string; reason: string }[];
}

/**
 * Export report…: the leak-suspects report of one session (shared/analysis/suspects, the CLI's
 * `heapscope suspects --format html`) saved as one self-contained HTML file: a save dialog in
 * Electron, a download in browser mode. Waits for the analysis of both sessions.
 */
export interface ExportReportReq extends SessionReq {
  /** Another open session to compare with (growth section); omitted = no baseline. */
  baselineSessionId?: SessionReq['sessionId'];
  /** Suspects retain at least this percentage of the reachable bytes (0 < p ≤ 100; default 10). */
  thresholdPercent?: number;
}

export interface ExportReportResult {
  /** 'saved': written where the user chose (Electron); 'downloaded': handed to the browser; 'cancelled': dialog dismissed. */
  outcome: 'saved' | 'downloaded' | 'cancelled';
  bytes: number;
  fileName: string;
  /** Suspects listed and inspection findings in the report. */
  suspects: number;
  findings: number;
  /** Browser mode only: where the bridge fetches the file from (token-protected, one use). */
  downloadUrl?: string;
}
