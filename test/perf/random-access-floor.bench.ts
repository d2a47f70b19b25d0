import { loadavg, platform } from 'node:os';
import { runChase, type ChaseResult } from './random-access-floor.js';

/**
 * The linearity floor on its own (random-access-floor.ts says what it measures): ROUNDS rounds of
 * a chase over SMALL and then BIG nodes' records, with 4 KiB pages and (Linux) with huge pages,
 * alternating so a drift of the machine hits every kind; then the medians per read and the ratio
 * a heap of BIG nodes would pay against SMALL for one such read per node.
 *
 *   npx tsx test/perf/random-access-floor.bench.ts [SMALL BIG] [--rounds 3]   (default 50M 100M)
 *
 * Needs ~12 bytes per node of free memory in the child (the shuffle's permutation beside the
 * records). A benchmark, not a test: no Heapscope code runs, only the machine.
 */
const args = process.argv.slice(2);
const roundsAt = args.indexOf('--rounds');
const rounds = roundsAt >= 0 ? Math.max(1, Number(args[roundsAt + 1])) : 3;
const sizes = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1] === '--rounds')).map(Number);
const [small, big] = sizes.length === 2 ? sizes : [50_000_000, 100_000_000];
if (!(small >= 2 && big > small)) {
  console.error('usage: random-access-floor.bench.ts [SMALL BIG] [--rounds N]   (node counts, SMALL < BIG)');
  process.exit(2);
}
const kinds = platform() === 'linux' ? [false, true] : [false];
const pageKind = (huge: boolean) => (huge ? 'huge' : '4k');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pages = (huge: boolean) => (huge ? 'huge pages' : '4 KiB pages');

console.log(`random-access floor: ${small.toLocaleString('en-US')} → ${big.toLocaleString('en-US')} nodes, ${rounds} round(s); load ${loadavg()[0].toFixed(1)}`);
const got = new Map<string, ChaseResult[]>();
for (let r = 0; r < rounds; r++) {
  const line: string[] = [];
  for (const huge of kinds) {
    for (const n of [small, big]) {
      const c = runChase(n, undefined, pageKind(huge));
      const key = `${huge}:${n}`;
      got.set(key, [...(got.get(key) ?? []), c]);
      line.push(`${pages(huge)} ${n.toLocaleString('en-US')}: ${c.nsPerRead} ns dependent, ${c.nsPerGather} ns independent${c.hugeShare !== null ? ` (huge share ${c.hugeShare})` : ''}`);
    }
  }
  console.log(`round ${r + 1}: ${line.join('; ')}; load ${loadavg()[0].toFixed(1)}`);
}
for (const huge of kinds) {
  for (const [kind, pick] of [['dependent', (c: ChaseResult) => c.nsPerRead], ['independent', (c: ChaseResult) => c.nsPerGather]] as const) {
    const a = median(got.get(`${huge}:${small}`)!.map(pick));
    const b = median(got.get(`${huge}:${big}`)!.map(pick));
    console.log(
      `${pages(huge)}, ${kind}: ${a.toFixed(1)} → ${b.toFixed(1)} ns per read (medians), ${(b / a).toFixed(2)}× per read; ` +
        `one read per node: ${((big * b) / (small * a)).toFixed(2)}× for ${(big / small).toFixed(2)}× the nodes`,
    );
  }
}
