import { open, rename, unlink } from 'node:fs/promises';
import type { HeapGraph } from '../../shared/graph/heap-graph.js';
import { writeGcdump, type WriteGcdumpOptions } from '../../shared/formats/gcdump/gcdump-writer.js';
import { mapFsError } from './file-byte-source.js';

/**
 * Write a graph as a .gcdump file: chunks go to `<path>.partial`, renamed into place only when
 * complete, so a failed or cancelled write never leaves a truncated file under the real name.
 * Returns the number of bytes written.
 */
export async function writeGcdumpFile(path: string, g: HeapGraph, opts: WriteGcdumpOptions = {}): Promise<number> {
  const tmp = `${path}.partial`;
  let bytes = 0;
  try {
    const fh = await open(tmp, 'w');
    try {
      for (const chunk of writeGcdump(g, opts)) {
        await fh.write(chunk);
        bytes += chunk.length;
      }
    } finally {
      await fh.close();
    }
    await rename(tmp, path);
    return bytes;
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw mapFsError(e, path);
  }
}
