import { open, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { AppError } from '../../shared/errors.js';
import type { ByteSource } from '../../shared/util/byte-source.js';

/**
 * A ByteSource over a file on disk. Each `read` is one positioned read into a fresh buffer, so
 * readers control memory by the chunk sizes they ask for; nothing reads the whole file at once.
 */
export class FileByteSource implements ByteSource {
  private constructor(
    private readonly handle: FileHandle,
    readonly size: number,
    readonly name: string,
  ) {}

  static async open(path: string): Promise<FileByteSource> {
    try {
      const st = await stat(path);
      if (st.isDirectory()) throw new AppError('io/read-failed', `${path} is a directory, not a snapshot file`);
      const handle = await open(path, 'r');
      return new FileByteSource(handle, st.size, basename(path));
    } catch (e) {
      throw mapFsError(e, path);
    }
  }

  async read(offset: number, length: number, reuse?: Uint8Array): Promise<Uint8Array> {
    const len = Math.max(0, Math.min(length, this.size - offset));
    const buf = reuse && reuse.length >= len ? reuse.subarray(0, len) : new Uint8Array(len);
    let done = 0;
    try {
      while (done < len) {
        const { bytesRead } = await this.handle.read(buf, done, len - done, offset + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
    } catch (e) {
      throw mapFsError(e, this.name);
    }
    return done === len ? buf : buf.subarray(0, done);
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}

export function mapFsError(e: unknown, path: string): AppError {
  if (e instanceof AppError) return e;
  const code = (e as { code?: string }).code;
  if (code === 'ENOENT') return new AppError('io/not-found', `no such file: ${path}`);
  if (code === 'EACCES' || code === 'EPERM') return new AppError('io/denied', `permission denied: ${path}`);
  return new AppError('io/read-failed', `cannot read ${path}: ${(e as Error).message ?? String(e)}`);
}
