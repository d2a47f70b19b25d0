/**
 * Where readers get their bytes: a file on disk (electron/files/file-byte-source.ts), a buffer
 * in memory, or a socket (the nettrace stream). Readers never see a path or a file handle, so
 * shared/ stays pure.
 *
 * `read` may return fewer bytes than asked only at the end of the source. Readers read in chunks
 * (typically 1–16 MiB) so a multi-GB file is never one buffer.
 */
export interface ByteSource {
  /** Total length in bytes, or -1 for a stream whose length is not known yet. */
  readonly size: number;
  /**
   * Bytes [offset, offset + length), clipped at the end of the source. `reuse`: a buffer this
   * source returned earlier that the caller is done with; a source that copies bytes may fill it
   * and return a view of it instead of allocating (fresh memory is a page fault per 4 KB on a VM).
   */
  read(offset: number, length: number, reuse?: Uint8Array): Promise<Uint8Array>;
  /** A short name for messages (file name, "stdin", "process 1234"). */
  readonly name: string;
}

/** A ByteSource over bytes already in memory (tests, the browser bridge, small files). */
export class MemoryByteSource implements ByteSource {
  readonly size: number;

  constructor(
    private readonly bytes: Uint8Array,
    readonly name = 'memory',
  ) {
    this.size = bytes.length;
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    const start = Math.max(0, Math.min(offset, this.bytes.length));
    const end = Math.max(start, Math.min(offset + length, this.bytes.length));
    return this.bytes.subarray(start, end);
  }
}

/** Bytes [from, to) of another source, as offsets [0, to − from): a stretch walked on its own. */
export class SliceByteSource implements ByteSource {
  readonly size: number;
  readonly name: string;

  constructor(
    private readonly source: ByteSource,
    private readonly from: number,
    to: number,
  ) {
    this.size = Math.max(0, to - from);
    this.name = source.name;
  }

  read(offset: number, length: number, reuse?: Uint8Array): Promise<Uint8Array> {
    const start = Math.max(0, Math.min(offset, this.size));
    return this.source.read(this.from + start, Math.max(0, Math.min(length, this.size - start)), reuse);
  }
}
