import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the bundled sample snapshot is: beside the packaged app's resources
 * (`process.resourcesPath/sample.gcdump`, electron-builder extraResources), or in the repo
 * (`electron/resources/sample.gcdump`) when running from sources or from out/.
 */
export const SAMPLE_FILE = 'sample.gcdump';

export function locateSample(opts: { resourcesPath?: string; callerUrl?: string } = {}): string | null {
  const candidates: string[] = [];
  if (opts.resourcesPath) candidates.push(join(opts.resourcesPath, SAMPLE_FILE));
  const here = dirname(fileURLToPath(opts.callerUrl ?? import.meta.url));
  // sources: electron/host → electron/resources; bundles: out/<x> → <repo>/electron/resources
  candidates.push(join(here, '..', 'resources', SAMPLE_FILE), join(here, '..', '..', 'electron', 'resources', SAMPLE_FILE));
  for (const c of candidates) if (existsSync(c)) return c;
  return null;
}
