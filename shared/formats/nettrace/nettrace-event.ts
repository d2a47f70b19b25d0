import type { EventMetadata } from './metadata-record.js';
import { formatGuid } from './payload-cursor.js';

/**
 * The `Trace` object (nettrace-format.md §A4): clock, pointer size and process of the stream.
 *
 * `syncTimeTicks` is a bigint because .NET ticks (~6.4e17) are past 2^53; it is read once.
 */
export interface NetTraceHeader {
  /** Container: 3 (NetPerf), 4 (NetTrace, also "v5"), 6. */
  formatVersion: number;
  /** Version of the `Trace` object (3 or 4), or 6 for v6 streams. */
  traceObjectVersion: number;
  /** SyncTimeUTC as ISO 8601 with milliseconds, "Z" suffix. */
  syncTimeUtc: string;
  /** SyncTimeUTC as .NET DateTime ticks (100 ns since 0001-01-01). */
  syncTimeTicks: bigint;
  syncTimeQpc: number;
  qpcFrequency: number;
  pointerSize: number;
  processId: number;
  numberOfProcessors: number;
  expectedCpuSamplingRate: number;
}

/**
 * One event, as a flyweight: the parser re-points a single instance for every event, so a
 * handler must copy what it keeps (the payload bytes are a view into the current block and are
 * reused after the callback returns).
 *
 * Reading fields costs nothing; `payload`, `timeMs` and the activity ids are computed on demand.
 */
export class NetTraceEvent {
  metadata!: EventMetadata;
  sequenceNumber = 0;
  /** OS thread the event is about. */
  threadId = 0;
  /** OS thread that logged it (sequence numbers are per capture thread). */
  captureThreadId = 0;
  processorNumber = 0;
  /** Stack id for `NetTraceParser.stackFor` (v4+); 0 = none. */
  stackId = 0;
  /** Trace clock (QPC) ticks. */
  timestamp = 0;
  isSorted = false;
  /** The buffer holding the payload (a whole block) and a DataView over the same bytes. */
  bytes: Uint8Array = new Uint8Array(0);
  view: DataView = new DataView(new ArrayBuffer(0));
  payloadOffset = 0;
  payloadLength = 0;
  /** Offsets of the 16-byte activity ids in `bytes`, or -1 when absent / all zero. */
  activityIdOffset = -1;
  relatedActivityIdOffset = -1;
  /** NetPerf v3 stacks are inline: offset/length of the return addresses in `bytes` (0 length = none). */
  inlineStackOffset = 0;
  inlineStackLength = 0;

  constructor(
    /** QPC value at the trace's sync time and ticks per second (from the header). */
    public syncTimeQpc = 0,
    public qpcFrequency = 1,
  ) {}

  get provider(): string {
    return this.metadata.provider;
  }

  get eventId(): number {
    return this.metadata.eventId;
  }

  get version(): number {
    return this.metadata.version;
  }

  get name(): string {
    return this.metadata.name;
  }

  /** Milliseconds since the trace's sync time (session start); negative for earlier rundown data. */
  get timeMs(): number {
    return ((this.timestamp - this.syncTimeQpc) * 1000) / this.qpcFrequency;
  }

  /** The payload as a view (no copy); valid only during the callback. */
  get payload(): Uint8Array {
    return this.bytes.subarray(this.payloadOffset, this.payloadOffset + this.payloadLength);
  }

  get activityId(): string | null {
    return this.activityIdOffset < 0 ? null : formatGuid(this.bytes, this.activityIdOffset);
  }

  get relatedActivityId(): string | null {
    return this.relatedActivityIdOffset < 0 ? null : formatGuid(this.bytes, this.relatedActivityIdOffset);
  }
}

/** What a finished (or cut-off) parse saw. */
export interface NetTraceSummary {
  header: NetTraceHeader | null;
  /** Events delivered to the handler (metadata records not included). */
  eventCount: number;
  metadataCount: number;
  /** Objects by type name: Trace, EventBlock, MetadataBlock, StackBlock, SPBlock (v6 kinds likewise). */
  objectCounts: Record<string, number>;
  /** Events lost by the runtime (gaps in per-thread sequence numbers, v4+). */
  droppedEvents: number;
  /** Events whose metadata id was never defined. */
  unknownMetadataEvents: number;
  /** v4 events whose timestamp is outside their block's [min, max] header (0 in a sound stream). */
  outOfRangeTimestamps: number;
  /** Bytes consumed, up to and including the end-of-stream marker. */
  bytesRead: number;
  /** The end-of-stream marker was seen. */
  complete: boolean;
  /** The stream stopped before the end marker (only returned with `allowTruncated`). */
  truncated: boolean;
  /** Why it is truncated (what was being read), or null. */
  truncatedAt: string | null;
  trailingBytes: number;
}

export function emptySummary(): NetTraceSummary {
  return {
    header: null,
    eventCount: 0,
    metadataCount: 0,
    objectCounts: {},
    droppedEvents: 0,
    unknownMetadataEvents: 0,
    outOfRangeTimestamps: 0,
    bytesRead: 0,
    complete: false,
    truncated: false,
    truncatedAt: null,
    trailingBytes: 0,
  };
}
