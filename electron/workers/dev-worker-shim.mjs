// Dev/test entry for TypeScript workers on Node 20: `new Worker('x.ts', {execArgv: ['--import', 'tsx']})`
// fails there (ERR_UNKNOWN_FILE_EXTENSION), so every TS worker starts from this shim, which loads
// its real entry (workerData.tsEntry, a file URL) through tsx (TOOLCHAIN §5). Production uses
// the esbuild bundles in out/workers/ instead and never loads tsx.
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

// No top-level await here: a worker terminated while a module with top-level await is still
// evaluating can abort the whole process on Node 20 (V8 "Check failed: (location_) != nullptr"
// in SourceTextModule::ExecuteAsyncModule; it took down a vitest fork once in CI, in
// session-manager.test.ts, whose analysis children can be terminated while they still load).
// So this module ends at once and the entry loads as a promise; messages posted meanwhile wait
// in the port until the entry listens. A failed import is an unhandled rejection, which ends the
// worker with an 'error' as a throw here did.
void tsImport(workerData.tsEntry, import.meta.url);
