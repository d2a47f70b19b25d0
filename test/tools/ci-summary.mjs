// Sums the JSON reports of vitest (and Playwright, when present) into the closing line CI reads:
// "tests: N passed, N failed, N skipped". Exits 1 when anything failed or a report is missing.
import { existsSync, readFileSync } from 'node:fs';

let passed = 0, failed = 0, skipped = 0;
for (const f of process.argv.slice(2)) {
  if (!existsSync(f)) { failed++; console.log(`missing report ${f}`); continue; }
  const r = JSON.parse(readFileSync(f, 'utf8'));
  if (r.numTotalTests !== undefined) { // vitest (jest-compatible JSON)
    passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + (r.numTodoTests ?? 0);
    if (r.numFailedTestSuites) failed += r.numFailedTestSuites - r.numFailedTests > 0 ? r.numFailedTestSuites - r.numFailedTests : 0;
  } else if (r.stats) { // playwright
    passed += r.stats.expected + r.stats.flaky; failed += r.stats.unexpected; skipped += r.stats.skipped;
  }
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed ? 1 : 0);
