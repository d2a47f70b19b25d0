import { describe, expect, it } from 'vitest';
import { snapshotWarnings } from '../../../../shared/analysis/snapshot-warnings.js';
import { tinyGraph } from '../../../helpers/graph-builder.js';
import { NO_FIXTURES } from '../../../helpers/fixtures.js';
import { fixtureBytes, loadFixture } from '../formats/gcdump/gcdump-test-utils.js';

/**
 * Where a file has lost which key keeps a ConditionalWeakTable value alive (dotnet-gcdump lists
 * the values as roots under [Dependent Handles]), the summary says so (issue 13 item 6).
 */
describe('the dependent-roots warning', () => {
  it('counts the values listed under [Dependent Handles], and says nothing when the category is empty', () => {
    const withRoots = tinyGraph((b) => {
      b.root('[other roots]').ref('[Dependent Handles]');
      b.root('[Dependent Handles]').ref('V1', 'V2');
      b.node('V1', 32);
      b.node('V2', 32);
    });
    expect(snapshotWarnings(withRoots.graph)).toEqual([
      {
        code: 'dependent-roots',
        message:
          '2 ConditionalWeakTable values are roots under [Dependent Handles]: this file does not say which key keeps each one alive ' +
          '(dotnet-gcdump does not record it), so they count as retained by the roots, not by their keys',
      },
    ]);
    const asReferences = tinyGraph((b) => {
      b.root('[Dependent Handles]');
      b.root('[static vars]').ref('Key');
      b.node('Key', 24).ref('V1');
      b.node('V1', 32);
    });
    expect(snapshotWarnings(asReferences.graph)).toEqual([]);
  });

  const android = fixtureBytes('mono_android_20231108_150515_31024') !== null;
  it.skipIf(!android)(`a dotnet-gcdump file's 16 dependent handles${android ? '' : ` (${NO_FIXTURES})`}`, async () => {
    const g = await loadFixture('mono_android_20231108_150515_31024');
    expect(snapshotWarnings(g).map((w) => [w.code, w.message.split(' ')[0]])).toEqual([['dependent-roots', '16']]);
  });
});
