import { execFileSync } from 'node:child_process';

/**
 * SOS (through dotnet-dump analyze) as a peer for object field values. SOS's `dumpobj` dies on
 * WithHeap cores (`heapscope dump`'s default type) with SIGSEGV inside the 10.0 DAC
 * (libmscordaccore.so calls strchr on a bad pointer right after "MethodTable:" is printed, with
 * -nofields too, for every object: it reads memory such a dump leaves out), while on full dumps it
 * works. So the peer reads objects as dumpobj would without that call: `dumpvc <class MT> <object +
 * pointer size>` prints an object's instance fields (MT, offset, type, VT, value, name) because a
 * class's field offsets count from just after its method-table pointer, exactly like a struct's.
 * `dumparray` lists array elements (element addresses for value types), `dumpmt` names a method
 * table, `dw` reads UTF-16 units. These are parsers for that text; the comparison is the test's.
 */

export interface SosField {
  /** The declared type's method table (0 when the type is not loaded). */
  mt: bigint;
  offset: number;
  /** The Type column: the declared type (enums as their underlying type), truncated to "...tail" when long. */
  type: string;
  valueType: boolean;
  attr: string;
  /** The Value column: a number in SOS's format, a hex address, or (statics) empty. */
  value: string;
  name: string;
}

export interface SosValueClass {
  name: string;
  mt: bigint;
  size: number;
  fields: SosField[];
}

export interface SosArray {
  name: string;
  mt: bigint;
  rank: number;
  length: number;
  elementMt: bigint;
  /** "VALUETYPE", "CLASS" or the primitive's name (e.g. "Int32"). */
  kind: string;
  /** Per listed element: its address (value types and primitives), the referenced object's address, or null. */
  elements: (bigint | null)[];
}

const ATTRS = new Set(['instance', 'static', 'TLstatic', 'CLstatic']);

/**
 * Run `commands` in one dotnet-dump session and return each command's output. Each command is
 * preceded by `dq -c 1 <marker>` (a one-line memory read whose line starts with the marker) so
 * that a command that prints nothing or fails still gets its own (empty or error) block.
 */
export function runSos(dotnetDump: string, dump: string, commands: string[], marker: bigint): string[] {
  const args = ['analyze', dump];
  for (const c of commands) args.push('-c', `dq -c 1 ${marker.toString(16)}`, '-c', c);
  args.push('-c', 'exit');
  const out = execFileSync(dotnetDump, args, { encoding: 'utf8', timeout: 600_000, maxBuffer: 1 << 30 });
  const head = new RegExp(`^${marker.toString(16).padStart(16, '0')}: [0-9a-f]{16}\\s*$`);
  const blocks: string[] = [];
  let current: string[] | null = null;
  for (const line of out.split('\n')) {
    if (head.test(line)) {
      if (current) blocks.push(current.join('\n'));
      current = [];
    } else if (current) current.push(line);
  }
  if (current) blocks.push(current.join('\n'));
  if (blocks.length !== commands.length) throw new Error(`dotnet-dump answered ${blocks.length} of ${commands.length} commands:\n${out.slice(-2000)}`);
  return blocks;
}

function hexAfter(text: string, label: string): bigint {
  const m = new RegExp(`^\\s*${label}:\\s+([0-9a-fA-F]+)`, 'm').exec(text);
  if (!m) throw new Error(`no ${label} in:\n${text}`);
  return BigInt('0x' + m[1]);
}

/** `dumpvc MT ADDR` (or a nested element's block): the fields table. Null when SOS printed no table. */
export function parseDumpVc(text: string): SosValueClass | null {
  const name = /^\s*Name:\s+(.+?)\s*$/m.exec(text);
  const size = /^\s*Size:\s+(\d+)\(/m.exec(text);
  if (!name || !size || !/^\s*Fields:/m.test(text)) return null;
  const fields: SosField[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([0-9a-f]{16}) ([0-9a-f]{8})\s+([0-9a-f]+)\s+(.+)$/.exec(line);
    if (!m) continue;
    const tokens = m[4].trim().split(/\s+/);
    let a = tokens.length - 1;
    while (a >= 0 && !ATTRS.has(tokens[a])) a--;
    if (a < 1) throw new Error(`unparsed SOS field row: ${line}`);
    fields.push({
      mt: BigInt('0x' + m[1]),
      offset: parseInt(m[3], 16),
      type: tokens.slice(0, a - 1).join(' '),
      valueType: tokens[a - 1] === 'Yes',
      attr: tokens[a],
      value: tokens.slice(a + 1, -1).join(' '),
      name: tokens[tokens.length - 1],
    });
  }
  return { name: name[1], mt: hexAfter(text, 'MethodTable'), size: Number(size[1]), fields };
}

/** `dumparray [-length N] ADDR`. Null when SOS printed no array header. */
export function parseDumpArray(text: string): SosArray | null {
  const head = /^Array:\s+Rank (\d+), Number of elements (\d+), Type (\S+)/m.exec(text);
  const name = /^Name:\s+(.+?)\s*$/m.exec(text);
  if (!head || !name) return null;
  const elements: (bigint | null)[] = [];
  for (const line of text.split('\n')) {
    const m = /^((?:\[\d+\])+) (null|[0-9a-f]{16})\s*$/.exec(line);
    if (m) elements.push(m[2] === 'null' ? null : BigInt('0x' + m[2]));
  }
  return { name: name[1], mt: hexAfter(text, 'MethodTable'), rank: Number(head[1]), length: Number(head[2]), kind: head[3], elementMt: hexAfter(text, 'Element Methodtable'), elements };
}

/** `dumpmt MT`: the type's name as the runtime spells it (generic arguments as `1[[T, assembly]]). */
export function parseDumpMtName(text: string): string | null {
  return /^Name:\s+(.+?)\s*$/m.exec(text)?.[1] ?? null;
}

/** `dw -c N ADDR`: the UTF-16 units read. */
export function parseWords(text: string): number[] {
  const words: number[] = [];
  for (const line of text.split('\n')) {
    const m = /^[0-9a-f]{16}:((?: [0-9a-f]{4})+)/.exec(line);
    if (m) for (const w of m[1].trim().split(' ')) words.push(parseInt(w, 16));
  }
  return words;
}

/**
 * The runtime's type name (`System.Nullable`1[[System.Int32, System.Private.CoreLib]]`) in the
 * form ClrMD and Heapscope print (`System.Nullable<System.Int32>`): arity suffixes dropped,
 * assembly names dropped, generic arguments in angle brackets. Array suffixes are kept.
 */
export function genericDisplayName(runtimeName: string): string {
  const s = runtimeName;
  let at = 0;
  function type(): string {
    let name = '';
    while (at < s.length) {
      if (s.startsWith('[[', at)) {
        at++; // the outer '['
        const args: string[] = [];
        while (s[at] === '[') {
          at++;
          args.push(type());
          at = s.indexOf(']', at) + 1; // past ", assembly]"
          if (s[at] === ',') at++;
        }
        at++; // the outer ']'
        name = distribute(name, args);
      } else if (s[at] === '[') {
        const end = s.indexOf(']', at); // an array suffix: [] or [,]
        name += s.slice(at, end + 1);
        at = end + 1;
      } else if (s[at] === ',' || s[at] === ']') {
        break;
      } else {
        name += s[at++];
      }
    }
    return name.replace(/`\d+/g, '');
  }
  return type();
}

/** Outer`2+Inner with [A, B] → Outer<A, B>+Inner: each nesting level takes its arity's arguments. */
function distribute(generic: string, args: string[]): string {
  let next = 0;
  return generic
    .split('+')
    .map((part) => {
      const m = /^(.*)`(\d+)$/.exec(part);
      if (!m) return part;
      const take = args.slice(next, next + Number(m[2]));
      next += take.length;
      return `${m[1]}<${take.join(', ')}>`;
    })
    .join('+');
}

/**
 * Whether Heapscope's (ClrMD's) name of a type is SOS's runtime name of its method table. Shared
 * generic code has one method table for all reference-type arguments, which the runtime names with
 * System.__Canon where ClrMD names the generic parameter (T1, TKey), the actual argument, or keeps
 * the open form (ConditionalWeakTable`2+Container): a __Canon position matches any name.
 */
export function sameTypeName(ours: string, runtimeName: string): boolean {
  const display = genericDisplayName(runtimeName);
  if (display === ours) return true;
  if (!runtimeName.includes('System.__Canon')) return false;
  if (ours === runtimeName.replace(/\[\[.*\]\]/, '')) return true;
  const pattern = display.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/System\\\.__Canon/g, '.+?');
  return new RegExp(`^${pattern}$`).test(ours);
}

/** A Type-column entry matches a full name when equal, or when SOS truncated it to "..." + its tail. */
export function sosTypeColumnMatches(column: string, full: string): boolean {
  return column === full || (column.startsWith('...') && full.endsWith(column.slice(3)));
}
