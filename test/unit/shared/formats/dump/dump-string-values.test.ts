import { describe, expect, it } from 'vitest';
import { readDumpStream } from '../../../../../shared/formats/dump/dump-graph.js';
import { edgeFieldNameOf, NONE, type HeapGraph } from '../../../../../shared/graph/heap-graph.js';
import { hasStringValues, stringValueIdOf, stringValueOf, stringValueTexts } from '../../../../../shared/graph/string-values.js';
import { MemoryByteSource } from '../../../../../shared/util/byte-source.js';
import { DumpStreamWriter } from '../../../../helpers/dump-stream-writer.js';
import { codeOf } from '../../../../helpers/error-code.js';
import { analysisGraph } from '../../../../../electron/workers/share-graph.js';

const read = (bytes: Uint8Array): Promise<HeapGraph> => readDumpStream(new MemoryByteSource(bytes, 'test.stream'));

const LONG = 'x'.repeat(1024);

/** An array holding four strings (two equal, one cut off), and a non-string object. */
function withStrings(): DumpStreamWriter {
  const w = new DumpStreamWriter();
  w.type(0, 'System.Object[]').type(1, 'System.String').type(2, 'Foo');
  w.object(0x1000, 0, 56, 0, [
    [0x2000, null],
    [0x3000, null],
    [0x4000, null],
    [0x5000, null],
    [0x6000, null],
  ]);
  w.object(0x2000, 1, 32, 0).stringValue(0x2000, 0, 'hello', 5);
  w.object(0x3000, 1, 32, 0).stringValue(0x3000, 0, null, 5);
  w.object(0x4000, 1, 4122, 0).stringValue(0x4000, 1, LONG, 2048);
  w.object(0x5000, 2, 24, 0);
  // A value whose text equals a type name: the STRING record is shared, the value is its own.
  w.object(0x6000, 1, 30, 0).stringValue(0x6000, 2, 'Foo', 3);
  w.root(1, 'App', 'Items', 0x1000);
  return w;
}

describe('string values in the dump stream (STRING_VALUE records)', () => {
  it('decode into one id per distinct value, the text and the full length per node; other nodes have none', async () => {
    const g = await read(withStrings().end().finish());
    expect(hasStringValues(g)).toBe(true);
    expect(stringValueTexts(g.stringValues!)).toEqual(['hello', LONG, 'Foo']);
    expect([...g.stringValues!.lengths]).toEqual([5, 2048, 3]);
    const byNode = Array.from({ length: g.nodeCount }, (_, n) => stringValueIdOf(g, n));
    // Nodes 0–5 are the objects in address order; then the root pseudo nodes.
    expect(byNode).toEqual([NONE, 0, 0, 1, NONE, 2, NONE, NONE, NONE]);
    expect(stringValueOf(g, 1)).toEqual({ id: 0, text: 'hello', length: 5, truncated: false });
    expect(stringValueOf(g, 3)).toEqual({ id: 1, text: LONG, length: 2048, truncated: true });
    expect(stringValueOf(g, 5)).toEqual({ id: 2, text: 'Foo', length: 3, truncated: false });
    expect(stringValueOf(g, 4)).toBeNull();
    expect(stringValueOf(g, g.rootIndex)).toBeNull();
  });

  it('a stream without string values has no column (as .gcdump and nettrace graphs)', async () => {
    const w = new DumpStreamWriter();
    w.type(0, 'System.String').object(0x1000, 0, 32, 0).root(3, null, null, 0x1000);
    const g = await read(w.end().finish());
    expect(hasStringValues(g)).toBe(false);
    expect(g.nodeStringValue).toBeUndefined();
    expect(stringValueOf(g, 0)).toBeNull();
    expect(stringValueIdOf(g, 0)).toBe(NONE);
  });

  it('the last object may be the only string: the column still covers every node', async () => {
    const w = new DumpStreamWriter();
    w.type(0, 'Foo').type(1, 'System.String');
    w.object(0x1000, 0, 24, 0, [[0x2000, 's']]);
    w.object(0x2000, 1, 28, 0).stringValue(0x2000, 0, 'a', 1);
    w.root(3, null, null, 0x1000);
    const g = await read(w.end().finish());
    expect(Array.from({ length: g.nodeCount }, (_, n) => stringValueIdOf(g, n))).toEqual([NONE, 0, NONE, NONE, NONE]);
  });

  it('decodes ASCII and non-ASCII texts alike (UTF-8 of any length)', async () => {
    const texts = ['plain', 'héllo ✓ 😀 日本', 'a'.repeat(5000), 'é'.repeat(3000), ''];
    const w = new DumpStreamWriter();
    w.type(0, 'System.String');
    texts.forEach((t, i) => w.object(0x1000 * (i + 1), 0, 22 + 2 * t.length, 0).stringValue(0x1000 * (i + 1), i, t, t.length));
    w.root(3, null, null, 0x1000);
    const g = await read(w.end().finish());
    expect(stringValueTexts(g.stringValues!)).toEqual(texts);
  });

  const broken: [string, (w: DumpStreamWriter) => void][] = [
    ['for another object than the one just written', (w) => w.object(0x1000, 0, 28, 0).stringValue(0x2000, 0, 'a', 1)],
    ['before any object', (w) => w.stringValue(0x1000, 0, 'a', 1).object(0x1000, 0, 28, 0)],
    ['twice for one object', (w) => w.object(0x1000, 0, 28, 0).stringValue(0x1000, 0, 'a', 1).stringValue(0x1000, 0, null, 1)],
    ['with a value id past the next one', (w) => w.object(0x1000, 0, 28, 0).stringValue(0x1000, 1, 'a', 1)],
    ['new without text', (w) => w.object(0x1000, 0, 28, 0).stringValue(0x1000, 0, null, 1)],
    ['with more text than its length', (w) => w.object(0x1000, 0, 28, 0).stringValue(0x1000, 0, 'abc', 2)],
    [
      'repeating a value with another length',
      (w) => {
        w.object(0x1000, 0, 28, 0).stringValue(0x1000, 0, 'a', 1);
        w.object(0x2000, 0, 28, 0).stringValue(0x2000, 0, null, 2);
      },
    ],
    ['naming a text string that was never defined', (w) => w.object(0x1000, 0, 28, 0).u8(0x08).u64(0x1000).u32(0).u32(77).u32(1)],
  ];
  for (const [what, write] of broken) {
    it(`a string value ${what} is format/corrupt`, async () => {
      const w = new DumpStreamWriter();
      w.type(0, 'System.String');
      write(w);
      expect(await codeOf(read(w.end().finish()))).toBe('format/corrupt');
    });
  }

  it('a stream cut inside a STRING_VALUE record is format/truncated', async () => {
    const w = new DumpStreamWriter();
    w.type(0, 'System.String').object(0x1000, 0, 28, 0).stringValue(0x1000, 0, 'a', 1);
    const bytes = w.finish();
    expect(await codeOf(read(bytes.subarray(0, bytes.length - 3)))).toBe('format/truncated');
  });
});

describe('string values and the rest of the graph', () => {
  it('the field-name table holds the field names alone (value texts share the stream\'s string table)', async () => {
    const w = new DumpStreamWriter();
    w.type(0, 'Holder').type(1, 'System.String');
    w.object(0x1000, 0, 24, 0, [[0x2000, 'name']]);
    w.object(0x2000, 1, 40, 0).stringValue(0x2000, 0, 'some value text', 15);
    w.root(3, null, null, 0x1000);
    const g = await read(w.end().finish());
    expect(g.fieldNames).toEqual(['name', '(dependent handle)']);
    expect(edgeFieldNameOf(g, g.firstEdge[0])).toBe('name');
    expect(stringValueTexts(g.stringValues!)).toEqual(['some value text']);
  });

  it('the analysis children get the graph without its string contents', async () => {
    const g = await read(withStrings().end().finish());
    const a = analysisGraph(g);
    expect(a.stringValues).toBeUndefined();
    expect(a.nodeStringValue).toBeUndefined();
    expect(a.edgeTarget).toBe(g.edgeTarget);
    expect(stringValueTexts(g.stringValues!).length).toBe(3);
  });
});
