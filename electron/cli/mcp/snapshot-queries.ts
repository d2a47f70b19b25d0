import { inspectionBaselineQuery, inspectionsQuery, pathsQuery } from './retention-tools.js';
import { summaryJson } from './snapshot-tools.js';
import { suspectsBaselineQuery, suspectsQuery } from './suspects-tool.js';
import { dominatorsQuery, topTypesQuery, typeSummaryQuery } from './table-tools.js';

/**
 * What a snapshot's worker can be asked (snapshot-worker.ts), by name: each takes the loaded
 * snapshot, the tool's arguments (structured-cloned from the main thread) and the request's
 * cancellation token, and returns plain data (JSON for the client, or a baseline / type summary
 * that the main thread passes to another snapshot's worker).
 */
export const QUERIES = {
  summary: summaryJson,
  top_types: topTypesQuery,
  dominators: dominatorsQuery,
  type_summary: typeSummaryQuery,
  paths_to_roots: pathsQuery,
  inspections: inspectionsQuery,
  inspection_baseline: inspectionBaselineQuery,
  suspects: suspectsQuery,
  suspects_baseline: suspectsBaselineQuery,
};

export type QueryName = keyof typeof QUERIES;
