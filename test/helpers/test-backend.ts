import { createBackend, type Backend } from '../../electron/host/backend.js';
import { devWorkerScripts } from '../../electron/workers/worker-scripts.js';

/**
 * The app's backend as the integration tests drive it: browser mode (paths may be typed), no
 * sample, real snapshot workers from the TypeScript sources, settings under `configDir`.
 * `poolSize` 1 puts every tab in one worker.
 */
export function testBackend(configDir: string, poolSize = 1): Backend {
  return createBackend({
    version: 'test',
    shell: { mode: 'browser', canTypePath: true, exportTarget: async () => null },
    configDir,
    samplePath: null,
    scripts: devWorkerScripts(),
    poolSize,
  });
}
