import { FormatError } from '../errors.js';
import type { HeapGraph } from '../graph/heap-graph.js';
import type { ByteSource } from '../util/byte-source.js';
import { DETECT_BYTES, detectFormat, type DetectedFormat } from './detect.js';
import type { ReadOptions } from './read-options.js';

/**
 * Open any supported snapshot: detect the format by content, then run its reader.
 *
 * Each reader is registered here by format; a format without a reader yet fails with a coded
 * error instead of guessing.
 */
export type SnapshotReader = (source: ByteSource, opts: ReadOptions) => Promise<HeapGraph>;

const readers: Partial<Record<Exclude<DetectedFormat, 'unknown'>, SnapshotReader>> = {};

export function registerReader(format: Exclude<DetectedFormat, 'unknown'>, reader: SnapshotReader): void {
  readers[format] = reader;
}

export async function sniffFormat(source: ByteSource): Promise<DetectedFormat> {
  return detectFormat(await source.read(0, DETECT_BYTES));
}

export async function readSnapshot(source: ByteSource, opts: ReadOptions = {}): Promise<HeapGraph> {
  const format = await sniffFormat(source);
  if (format === 'unknown') {
    throw new FormatError('format/unknown', `${source.name} is not a .gcdump, .nettrace or Compact Framework heap log`, { offset: 0 });
  }
  const reader = readers[format];
  if (!reader && format === 'dump') {
    throw new FormatError('dump/helper-missing', `${source.name} is a process dump; dumps are read by a helper process that only the CLI and the desktop app start`);
  }
  if (!reader) throw new FormatError('format/unsupported-version', `${source.name}: reading ${format} files is not supported yet`);
  return reader(source, opts);
}
