import type { Finding } from '../../shared/analysis/inspections/index.js';
import type { PathStep } from '../../shared/analysis/paths-to-roots.js';

/** The JSON shapes of `heapscope mcp`'s tool answers, as far as the tests read them. */
export interface ToolErrorJson {
  error: { code: string; message: string; detail?: Record<string, unknown> };
}

export interface OpenJson {
  snapshot: string;
  file: string;
  objectCount: number;
  reachableBytes: number;
  openSnapshots: string[];
}

export interface PageJson<R> {
  totalRows: number;
  offset: number;
  nextOffset: number | null;
  rows: R[];
}

export interface DominatorJson {
  node: number;
  type: string;
  address: string;
  shallowSize: number;
  retainedSize: number;
  percentOfReachable: number;
  pseudo: boolean;
  childCount: number;
}

export interface DominatorsJson extends PageJson<DominatorJson> {
  parent: DominatorJson;
  reachable: boolean;
}

export interface TypeRowJson {
  type: string;
  count: number;
  shallowSize: number;
  retainedSize: number;
}

export interface PathJson {
  length: number;
  rootCategory: string | null;
  steps: PathStep[];
  omittedSteps?: number;
  omittedAfterStep?: number;
}

export interface ObjectPathsJson {
  target: PathStep;
  reachable: boolean;
  truncated: boolean;
  paths: PathJson[];
}

export interface TypePathsJson {
  type: string;
  instances: number;
  reachable: number;
}

export interface InspectionsJson {
  snapshot?: string;
  findings: Finding[];
}
