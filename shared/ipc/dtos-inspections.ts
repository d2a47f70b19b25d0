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
