// Dev/test entry for TypeScript workers on Node 20: `new Worker('x.ts', {execArgv: ['--import', 'tsx']})`
// fails there (ERR_UNKNOWN_FILE_EXTENSION), so every TS worker starts from this shim, which loads
// its real entry (workerData.tsEntry, a file URL) through tsx (TOOLCHAIN §5). Production uses
// the esbuild bundles in out/workers/ instead and never loads tsx.
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

await tsImport(workerData.tsEntry, import.meta.url);
