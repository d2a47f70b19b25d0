/**
 * dotnet-gcdump's pseudo-node builders (nettrace-format.md §C1, §C8): the `[.NET Roots]` tree
 * of categories (`[static vars]`, `[other roots]` → `[strong Handles]`, …) above the objects.
 *
 * A pseudo-node (PN) takes its node index the moment it is created, and is recorded in its
 * parent's child list at that moment too, so pseudo-nodes are numbered 0, 1, … in dotnet-gcdump's
 * creation order and every child list is in its order.
 * PNs are few (one per category plus one per distinct static field), so each is a row in plain
 * arrays; a name → child map exists only for PNs that have PN children.
 */
export class PseudoNodeTree {
  readonly names: string[] = [];
  /** Node index of each PN. */
  readonly nodeIndex: number[] = [];
  /** NODE_* flags to add to each PN (beyond NODE_PSEUDO). */
  readonly flags: number[] = [];
  /** Child PNs in creation order (for the pre-order walk). */
  private readonly childPns: number[][] = [];
  /** All children as node indices, PNs included, in the order they were added. */
  readonly children: number[][] = [];
  private readonly byName: (Map<string, number> | null)[] = [];

  constructor(
    rootName: string,
    private readonly allocate: () => number,
  ) {
    this.create(rootName);
  }

  readonly root = 0;

  get count(): number {
    return this.names.length;
  }

  /** The PN child of `parent` called `name`, created (and given a node index) if new. */
  child(parent: number, name: string): number {
    let map = this.byName[parent];
    if (!map) map = this.byName[parent] = new Map();
    const existing = map.get(name);
    if (existing !== undefined) return existing;
    const pn = this.create(name);
    map.set(name, pn);
    this.childPns[parent].push(pn);
    this.children[parent].push(this.nodeIndex[pn]);
    return pn;
  }

  /** Whether `parent` already has a PN child called `name` (without creating it). */
  has(parent: number, name: string): boolean {
    return this.byName[parent]?.has(name) ?? false;
  }

  /** Append an object node to a PN's children. */
  addNode(pn: number, node: number): void {
    this.children[pn].push(node);
  }

  /** PNs in depth-first pre-order (root, then each child subtree in creation order); iterative. */
  preOrder(): number[] {
    const out: number[] = [];
    const stack = [this.root];
    while (stack.length > 0) {
      const pn = stack.pop()!;
      out.push(pn);
      const kids = this.childPns[pn];
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
    return out;
  }

  private create(name: string): number {
    const pn = this.names.length;
    this.names.push(name);
    this.nodeIndex.push(this.allocate());
    this.flags.push(0);
    this.childPns.push([]);
    this.children.push([]);
    this.byName.push(null);
    return pn;
  }
}
