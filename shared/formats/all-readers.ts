/**
 * Registers every snapshot reader with read-snapshot.ts. Import this once at an entry point
 * (CLI, worker, browser bridge); importing read-snapshot.ts alone registers nothing.
 */
import { registerReader } from './read-snapshot.js';
import { readGcdump } from './gcdump/gcdump-reader.js';
import { readCfHeapLog } from './cf-heaplog/cf-heaplog-reader.js';
import { readNetTraceSnapshot } from './nettrace/read-nettrace-snapshot.js';

// Each format adds one line here, e.g.:
// registerReader('gcdump', readGcdump);
void registerReader;
registerReader('gcdump', readGcdump);
registerReader('cf-heaplog', readCfHeapLog);
registerReader('nettrace', readNetTraceSnapshot);
