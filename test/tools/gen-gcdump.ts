/**
 * Writes a synthetic .gcdump (synthetic-heap.ts) for benchmarks and manual testing:
 *
 *   npm run gen -- --objects 10000000 --out big.gcdump [--seed N] [--no-segments] [--root-last | --producer-order]
 *
 * `--root-last` writes the records in node order except the root's, which comes last, where the
 * real fixtures' producers write it: the reader then takes its path for records out of node order
 * (node-blob-decoder.ts), which a file in node order never does, with few runs out of place.
 * `--producer-order` numbers and writes the nodes the way those producers do (producer-order.ts):
 * many records out of place, the reader's general path.
 *
 * The writer returns the file as a list of chunks; they go to disk one by one, so the file is
 * never one buffer in memory.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { writeGcdump } from '../../shared/formats/gcdump/gcdump-writer.js';
import { producerOrder } from './producer-order.js';
import { makeSyntheticHeap } from './synthetic-heap.js';

export interface GeneratedDump {
  path: string;
  bytes: number;
  nodes: number;
  edges: number;
  buildMs: number;
  writeMs: number;
}

export function generateGcdump(opts: { objects: number; out: string; seed?: number; segments?: boolean; rootLast?: boolean; producerOrder?: boolean }): GeneratedDump {
  const t0 = performance.now();
  let g = makeSyntheticHeap({ objects: opts.objects, seed: opts.seed ?? 1, segments: opts.segments });
  let recordOrder = opts.rootLast ? rootLastOrder(g.nodeCount, g.rootIndex) : undefined;
  if (opts.producerOrder) ({ graph: g, recordOrder } = producerOrder(g));
  const t1 = performance.now();
  const chunks = writeGcdump(g, { recordOrder });
  const fd = openSync(opts.out, 'w');
  let bytes = 0;
  try {
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i];
      for (let done = 0; done < c.length; ) done += writeSync(fd, c, done, c.length - done);
      bytes += c.length;
    }
  } finally {
    closeSync(fd);
  }
  return { path: opts.out, bytes, nodes: g.nodeCount, edges: g.edgeCount, buildMs: t1 - t0, writeMs: performance.now() - t1 };
}

/** Node indices in order, the root's moved to the end. */
export function rootLastOrder(n: number, root: number): Uint32Array {
  const order = new Uint32Array(n);
  let k = 0;
  for (let i = 0; i < n; i++) if (i !== root) order[k++] = i;
  order[k] = root;
  return order;
}

function main(argv: string[]): number {
  let objects = 0;
  let out = '';
  let seed = 1;
  let segments = true;
  let rootLast = false;
  let producer = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--objects') objects = Number(value().replace(/_/g, ''));
    else if (a === '--out') out = value();
    else if (a === '--seed') seed = Number(value());
    else if (a === '--no-segments') segments = false;
    else if (a === '--root-last') rootLast = true;
    else if (a === '--producer-order') producer = true;
    else throw new Error(`unknown option ${a}`);
  }
  if (!Number.isInteger(objects) || objects < 100 || !out || !Number.isInteger(seed) || (rootLast && producer)) {
    process.stderr.write('usage: npm run gen -- --objects N (≥ 100) --out FILE [--seed N] [--no-segments] [--root-last | --producer-order]\n');
    return 2;
  }
  const r = generateGcdump({ objects, out, seed, segments, rootLast, producerOrder: producer });
  const mb = (r.bytes / 1e6).toFixed(1);
  process.stdout.write(
    `${r.path}: ${r.nodes.toLocaleString('en-US')} nodes, ${r.edges.toLocaleString('en-US')} references, ${mb} MB ` +
      `(built in ${Math.round(r.buildMs)} ms, written in ${Math.round(r.writeMs)} ms)\n`,
  );
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exitCode = 2;
  }
}
