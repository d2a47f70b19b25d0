import type { SyntheticHeap } from './heap-trace.js';

/**
 * A deliberately plain re-implementation of nettrace-format.md Part C (Maps, objects, recursion
 * on tiny inputs) working on a SyntheticHeap directly instead of on events: the oracle for the
 * randomized tests of the real, typed-array assembler. Weak-handle roots follow our documented
 * extension (a `[weak Handles]` category created last) when `keepWeak` is set. Dependent handles
 * are key → value references appended to the key's row (a value whose key is not an object
 * stays a root under [Dependent Handles]), or, with `dependent: 'roots'`, dotnet-gcdump's roots.
 */
export interface NaiveNode {
  type: number;
  size: number;
  address: bigint;
  children: number[];
  defined: boolean;
}

export interface NaiveGraph {
  nodes: NaiveNode[];
  types: { name: string; module: string | null; size: number }[];
}

interface Pn {
  name: string;
  index: number;
  kids: Pn[];
  /** kids by name (a name is created once per parent), so 70K static vars are not a quadratic search */
  byName: Map<string, Pn>;
  children: number[];
}

export function naiveGcdump(heap: SyntheticHeap, keepWeak: boolean, maxNodes = 10_000_000, dependent: 'references' | 'roots' = 'references'): NaiveGraph {
  const nodes: NaiveNode[] = [];
  const byAddress = new Map<bigint, number>();
  const createNode = (address = 0n) => nodes.push({ type: 0, size: 0, address, children: [], defined: false }) - 1;
  const nodeFor = (a: number | bigint) => {
    const key = BigInt(a);
    let n = byAddress.get(key);
    if (n === undefined) byAddress.set(key, (n = createNode(key)));
    return n;
  };
  const pn = (name: string): Pn => ({ name, index: createNode(), kids: [], byName: new Map(), children: [] });
  const child = (p: Pn, name: string) => {
    let c = p.byName.get(name);
    if (!c) {
      c = pn(name);
      p.kids.push(c);
      p.byName.set(name, c);
      p.children.push(c.index);
    }
    return c;
  };
  const types: NaiveGraph['types'] = [{ name: 'UNDEFINED', module: null, size: 0 }];
  const interned = new Map<string, number>();
  const createType = (name: string, module: string | null) => types.push({ name, module, size: -1 }) - 1;
  const internType = (name: string, module: string | null) => {
    const key = module === null ? name : `${module}!${name}`;
    if (!interned.has(key)) interned.set(key, createType(name, module));
    return interned.get(key)!;
  };
  const setNode = (n: number, t: number, size: number, kids: number[]) => {
    Object.assign(nodes[n], { type: t, size, children: kids, defined: true });
    if (types[t].size < 0) types[t].size = size;
  };
  const hex = (v: number | bigint) => BigInt(v).toString(16);

  const root = pn('[.NET Roots]');
  const weak: bigint[] = [];
  // immediate: root edges (the event handler creates [static vars] first), dependent handles, RCWs
  if (heap.roots.length > 0) child(root, '[static vars]');
  for (const r of heap.roots) {
    if (r.flags & 2) {
      weak.push(BigInt(r.address));
      continue;
    }
    let parent = root;
    let name = '[local vars]';
    if (r.kind !== 0) {
      parent = child(root, '[other roots]');
      name = r.flags & 8 ? '[COM/WinRT Objects]' : r.kind === 1 ? '[finalizer Handles]' : r.kind === 2 ? (r.flags === 1 ? '[pinning Handles]' : '[strong Handles]') : '[other Handles]';
    }
    child(parent, name).children.push(nodeFor(r.address));
  }
  let dep: Pn | null = null;
  const pairs: { key: bigint; value: number }[] = [];
  if (heap.dependent?.length) {
    dep = child(child(root, '[other roots]'), '[Dependent Handles]');
    for (const d of heap.dependent) {
      if (d.key === 0) continue;
      if (dependent === 'roots') dep.children.push(nodeFor(d.value));
      else pairs.push({ key: BigInt(d.key), value: nodeFor(d.value) });
    }
  }
  const rcw = new Map<bigint, number>();
  for (const r of heap.rcws ?? []) rcw.set(BigInt(r.object), r.iUnknown);

  // C4 types
  const modules = new Map(heap.modules.map((m) => [BigInt(m.id), m.path]));
  const typeOf = new Map<bigint, number>();
  for (const t of heap.types) {
    let name = t.name || ((t.flags ?? 0) & 8 ? `ArrayType(0x${hex(t.nameId ?? 0x02000001)})` : `Type(0x${hex(t.nameId ?? 0x02000001)})`);
    name = name.replace(/`\d+/g, '').replace(/\[/g, '<').replace(/\]/g, '>').replace(/<>/g, '[]');
    const module = modules.get(BigInt(t.module ?? 0)) ?? `Module(0x${hex(t.module ?? 0)})`;
    if ((t.flags ?? 0) & 4) name = `[RCW ${name}]`;
    typeOf.set(BigInt(t.id), internType(name, module));
  }
  const buckets = new Map<string, number>();
  const typeIndexFor = (id: number | bigint, size: number) => {
    let t = typeOf.get(BigInt(id));
    if (t === undefined) typeOf.set(BigInt(id), (t = internType(`UNKNOWN 0x${hex(id)}`, null)));
    if (size <= 1000) return t;
    const suffix = size < 1e4 ? '1K' : size < 1e5 ? '10K' : size < 1e6 ? '100K' : size < 1e7 ? '1M' : size < 1e8 ? '10M' : '100M';
    const name2 = `${types[t].name} (Bytes > ${suffix})`;
    if (!buckets.has(name2)) buckets.set(name2, internType(name2, types[t].module));
    return buckets.get(name2)!;
  };
  // C5 CCW
  const ccwRoot = child(root, '[COM/WinRT Objects]');
  for (const c of heap.ccws ?? []) {
    if (!c.iUnknown) continue;
    const n = nodeFor(c.iUnknown);
    const tt = typeIndexFor(c.type, 200);
    const ct = internType(`[CCW 0x${hex(c.iUnknown)} for type ${types[tt].name}]`, null);
    setNode(n, ct, 200, [nodeFor(c.object)]);
    ccwRoot.children.push(n);
  }
  // C6 statics
  const statics = child(root, '[static vars]');
  for (const s of heap.statics ?? []) {
    const parent = (s.flags ?? 0) & 1 ? child(root, '[thread static vars]') : statics;
    const t = typeOf.get(BigInt(s.type));
    const tn = t !== undefined ? types[t].name : `Type(0x${hex(s.type)})`;
    child(parent, `[static var ${tn}.${s.field}]`).children.push(nodeFor(s.object));
  }
  // C7 objects
  const objectAt = new Set<bigint>();
  for (const o of heap.objects) {
    const n = nodeFor(o.address);
    objectAt.add(BigInt(o.address));
    let size = Number(o.size);
    const t = typeIndexFor(o.type, size);
    const kids = o.refs.map((r) => nodeFor(r));
    const com = rcw.get(BigInt(o.address));
    if (com !== undefined) {
      kids.push(nodeFor(com));
      size += 1000;
    }
    setNode(n, t, size, kids);
    if (nodes.length >= maxNodes) break;
  }
  for (const p of pairs) {
    if (objectAt.has(p.key)) nodes[byAddress.get(p.key)!].children.push(p.value);
    else dep!.children.push(p.value);
  }
  if (keepWeak && weak.length) {
    const w = child(root, '[weak Handles]');
    for (const a of weak) {
      const n = byAddress.get(a);
      if (n !== undefined && nodes[n].defined) w.children.push(n);
    }
  }
  // C8
  const pnTypes = new Map<string, number>();
  const visit = (p: Pn) => {
    if (!pnTypes.has(p.name)) pnTypes.set(p.name, createType(p.name, null));
    setNode(p.index, pnTypes.get(p.name)!, 0, p.children);
    nodes[p.index].address = 0n;
    p.kids.forEach(visit);
  };
  visit(root);
  return { nodes, types };
}
