import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fixturePath, NO_FIXTURES } from '../../../../helpers/fixtures.js';
import { children, loadFixture } from './gcdump-test-utils.js';

/**
 * perfview_test1 against PerfView's own XML dump of it (XmlGcHeapDump.WriteGCDumpToXml, the
 * baseline of PerfView's GraphSerializationTests): every node and every type, not a sample.
 * The baseline carries type names only (no sizes or modules), so those come from the spec.
 */
const xmlPath = fixturePath('gcdump/perfview_test1_baseline.gcdump.xml');

function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#x[0-9a-fA-F]+|#\d+);/g, (_, e: string) => {
    if (e === 'lt') return '<';
    if (e === 'gt') return '>';
    if (e === 'amp') return '&';
    if (e === 'quot') return '"';
    if (e === 'apos') return "'";
    return String.fromCodePoint(e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
}

interface XmlNode {
  index: number;
  type: number;
  size: number;
  address: bigint;
  children: number[];
}

function parseBaseline(xml: string): { attrs: Record<string, string>; root: number; types: string[]; nodes: XmlNode[] } {
  const graphTag = /<MemoryGraph ([^>]*)>/.exec(xml)![1];
  const attrs = Object.fromEntries([...graphTag.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
  const root = Number(/<RootIndex>(\d+)<\/RootIndex>/.exec(xml)![1]);
  const types: string[] = [];
  for (const m of xml.matchAll(/<NodeType Index="(\d+)" Name="([^"]*)"\/>/g)) types[Number(m[1])] = unescapeXml(m[2]);
  const nodes: XmlNode[] = [];
  const nodeRe = /<Node Index="(\d+)" TypeIndex="(\d+)" Size="(\d+)" Type="[^"]*" NumChildren="(\d+)" Address="0x([0-9a-fA-F]+)" End="0x[0-9a-fA-F]+"(?:\/>|>([^<]*)<\/Node>)/g;
  for (const m of xml.matchAll(nodeRe)) {
    const kids = (m[6] ?? '').trim();
    const node: XmlNode = { index: Number(m[1]), type: Number(m[2]), size: Number(m[3]), address: BigInt('0x' + m[5]), children: kids ? kids.split(/\s+/).map(Number) : [] };
    expect(node.children.length).toBe(Number(m[4]));
    nodes.push(node);
  }
  return { attrs, root, types, nodes };
}

describe.skipIf(!xmlPath)(`perfview_test1 vs PerfView's XML baseline (${xmlPath ? 'present' : NO_FIXTURES})`, () => {
  it('has identical node and type tables', async () => {
    const base = parseBaseline(readFileSync(xmlPath!, 'utf8'));
    const g = await loadFixture('perfview_test1');
    expect(base.attrs.NumNodes).toBe(String(g.nodeCount));
    expect(base.attrs.NumTypes).toBe(String(g.types.count));
    expect(base.attrs.TotalSize).toBe(String(g.totalSize));
    expect(base.root).toBe(g.rootIndex);

    expect(base.types.length).toBe(1994);
    expect(g.types.names).toEqual(base.types);
    expect(g.types.modules.every((m) => m === null)).toBe(true); // JavaScript heap: no modules

    expect(base.nodes.length).toBe(6482);
    const mismatches: string[] = [];
    for (const x of base.nodes) {
      const n = x.index;
      const got = { index: n, type: g.nodeType[n], size: g.selfSize[n], address: g.address[n], children: children(g, n) };
      if (JSON.stringify(got, (_, v) => (typeof v === 'bigint' ? v.toString() : v)) !== JSON.stringify(x, (_, v) => (typeof v === 'bigint' ? v.toString() : v))) {
        mismatches.push(`node ${n}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(base.nodes.map((x) => x.index)).toEqual(Array.from({ length: 6482 }, (_, i) => i));
  });
});
