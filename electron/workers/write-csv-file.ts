import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

/**
 * Streams CSV pieces (shared/session/csv-export.ts `csvChunks`) to `outPath`, waiting for the
 * stream to drain so memory stays at one chunk however many rows there are. Used in a snapshot
 * worker (session views) and in main (live GC monitors). On failure the stream is destroyed and
 * the error rethrown; the partial file is left for the caller to report.
 */
export async function writeCsvFile(chunks: Generator<string, number>, outPath: string): Promise<{ rows: number; bytes: number }> {
  const out = createWriteStream(outPath);
  let bytes = 0;
  let rows = 0;
  try {
    for (;;) {
      const next = chunks.next();
      if (next.done) {
        rows = next.value;
        break;
      }
      bytes += Buffer.byteLength(next.value);
      if (!out.write(next.value)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
  } catch (e) {
    out.destroy();
    throw e;
  }
  return { rows, bytes };
}
