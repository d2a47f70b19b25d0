import type { HeapGraphBuilder } from '../../graph/heap-graph-builder.js';

/** dotnet-gcdump's type table: interned real types, bucket types by name, PN types appended. */
export class TypeTableBuilder {
  readonly names: string[] = ['UNDEFINED'];
  readonly modules: (string | null)[] = [null];
  readonly sizes: number[] = [0];
  private readonly byKey = new Map<string, number>();
  private readonly byBucketName = new Map<string, number>();
  private readonly unknownModules = new Map<number, string>();

  constructor(private readonly moduleNames: ReadonlyMap<number, string>) {}

  moduleName(moduleId: number): string {
    return this.moduleNames.get(moduleId) ?? this.unknownModule(moduleId);
  }

  add(name: string, module: string | null): number {
    this.names.push(name);
    this.modules.push(module);
    this.sizes.push(-1);
    return this.names.length - 1;
  }

  intern(name: string, module: string | null): number {
    const key = module === null ? name : `${module}!${name}`;
    let t = this.byKey.get(key);
    if (t === undefined) {
      t = this.add(name, module);
      this.byKey.set(key, t);
    }
    return t;
  }

  /** The "(Bytes > 1K)"-style type for `t`; looked up by name only, as in PerfView. */
  bucket(t: number, suffix: string): number {
    const name = this.names[t] + suffix;
    let b = this.byBucketName.get(name);
    if (b === undefined) {
      b = this.intern(name, this.modules[t]);
      this.byBucketName.set(name, b);
    }
    return b;
  }

  /** A type's stored size is the size of its first node (§C1). */
  sized(t: number, size: number): void {
    if (this.sizes[t] < 0) this.sizes[t] = size;
  }

  copyInto(b: HeapGraphBuilder): void {
    b.setType(0, this.names[0], null, this.sizes[0]);
    for (let t = 1; t < this.names.length; t++) b.addType(this.names[t], this.modules[t], this.sizes[t]);
  }

  private unknownModule(moduleId: number): string {
    let s = this.unknownModules.get(moduleId);
    if (!s) {
      s = `Module(0x${moduleId.toString(16)})`;
      this.unknownModules.set(moduleId, s);
    }
    return s;
  }
}
