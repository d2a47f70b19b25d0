import { Worker } from 'node:worker_threads';
import { AppError, fromErrorDto, type AppErrorDto } from '../../shared/errors.js';
import type { SectionFragment } from '../../shared/formats/cf-heaplog/section-fragment.js';
import type { BlobPart, BlobPartReader, BlobPartRequest } from '../../shared/formats/gcdump/blob-split.js';
import type { StretchReader } from '../../shared/formats/read-options.js';
import type { CancellationToken } from '../../shared/util/cancellation.js';
import type { SnapshotWorkerData } from './worker-protocol.js';

/** What analysis.worker.ts gets to read a stretch of a CF heap log. */
export interface FragmentJob {
  part: 'cf-fragment';
  path: string;
  request: Parameters<StretchReader>[0];
}

/** What analysis.worker.ts gets to decode the second half of a .gcdump node blob. */
export interface BlobPartJob {
  part: 'gcdump-blob';
  path: string;
  request: BlobPartRequest;
}

/** How often a waiting reader looks at its cancellation token (CancellationToken has no callback). */
const CANCEL_POLL_MS = 50;

/**
 * A StretchReader for the file at `path`: each call reads its stretch in a new child worker
 * (the compute child, analysis.worker.ts) that opens the file itself, so the two halves of a big
 * log are read on two cores (shared/formats/cf-heaplog/section-fragment.ts). The fragment's
 * arrays come back transferred, not copied. Null when analyses run inline (no child script):
 * then nothing runs in parallel anyway. Its `gcdumpBlob` does the same for the second half of a
 * .gcdump node blob (shared/formats/gcdump/blob-split.ts); the node offsets it reads are shared.
 *
 * Failure is harmless by design: the reader treats a rejected `result` as "read it here".
 * Cancelling the load rejects `result` within CANCEL_POLL_MS and ends the thread.
 */
export function childStretchReader(path: string, data: Pick<SnapshotWorkerData, 'analysis' | 'analysisLimits'>): StretchReader | undefined {
  if (!data.analysis) return undefined;
  const reader: StretchReader = (request, token, progress) => inChild<SectionFragment>(data, { part: 'cf-fragment', path, request }, token, progress);
  const blob: BlobPartReader = (request, token, progress) => inChild<BlobPart>(data, { part: 'gcdump-blob', path, request }, token, progress);
  reader.gcdumpBlob = blob;
  return reader;
}

function inChild<T>(
  data: Pick<SnapshotWorkerData, 'analysis' | 'analysisLimits'>,
  job: FragmentJob | BlobPartJob,
  token: CancellationToken,
  progress: (bytes: number) => void,
): { result: Promise<T>; cancel(): void } {
  const script = data.analysis!;
  const worker = new Worker(script.file, {
    workerData: script.tsEntry ? { tsEntry: script.tsEntry } : {},
    resourceLimits: data.analysisLimits,
  });
  let timer: ReturnType<typeof setInterval> | undefined;
  const result = new Promise<T>((resolve, reject) => {
    const settle = (f: () => void) => {
      clearInterval(timer);
      f();
      void worker.terminate();
    };
    worker.on('message', (m: { type: 'progress'; bytes: number } | { type: 'done'; result: T } | { type: 'error'; error: AppErrorDto }) => {
      if (m.type === 'progress') progress(m.bytes);
      else if (m.type === 'done') settle(() => resolve(m.result));
      else settle(() => reject(fromErrorDto(m.error)));
    });
    worker.on('error', (e: Error) => settle(() => reject(new AppError('worker/crashed', `the stretch reader failed: ${e.message}`))));
    worker.on('exit', (code) => settle(() => reject(new AppError('worker/crashed', `the stretch reader exited with code ${code}`))));
    timer = setInterval(() => {
      try {
        token.throwIfCancelled();
      } catch (e) {
        settle(() => reject(e));
      }
    }, CANCEL_POLL_MS);
  });
  worker.postMessage(job);
  return { result, cancel: () => void worker.terminate() };
}
