// A snapshot worker that takes 2.5 s before it listens, as a worker thread can on a busy machine
// (jammed-worker.test.ts: a cancel sent meanwhile must not be taken for a jam). Blocks the thread
// with Atomics.wait, then runs the real entry.
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500);
await import('../../../electron/workers/snapshot.worker.js');
export {};
