import { AppError, type ErrorCode } from '../../shared/errors.js';

/**
 * Command-line parsing for `heapscope <command> ...`.
 *
 * Each command declares its flags; anything undeclared, a missing value or a bad choice is a usage
 * error (exit code 2). Flags may repeat when declared `multiple` (e.g. --fail-if-growth).
 */
export interface FlagSpec {
  /** Takes a value (`--top 10`, `--top=10`); otherwise a boolean switch. */
  value?: boolean;
  multiple?: boolean;
  choices?: readonly string[];
  /** Short alias without the dash, e.g. 'p' for -p, 'o' for -o. */
  short?: string;
}

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string[]>;
}

export class UsageError extends AppError {
  /** The first line alone; `lines` is a listing printed below it (e.g. candidate type names). */
  readonly headline: string;

  constructor(
    message: string,
    readonly lines: readonly string[] = [],
    /** A more specific code for a usage mistake (e.g. strings/needs-dump: the wrong kind of file). */
    code: ErrorCode = 'usage/bad-argument',
  ) {
    super(code, lines.length ? `${message}\n${lines.join('\n')}` : message);
    this.headline = message;
    this.name = 'UsageError';
  }
}

export function parseArgs(argv: readonly string[], spec: Readonly<Record<string, FlagSpec>>): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  const byShort = new Map<string, string>();
  for (const [name, s] of Object.entries(spec)) if (s.short) byShort.set(s.short, name);
  let i = 0;
  let onlyPositionals = false;
  while (i < argv.length) {
    const a = argv[i++];
    if (onlyPositionals || a === '-' || !a.startsWith('-')) {
      positionals.push(a);
      continue;
    }
    if (a === '--') {
      onlyPositionals = true;
      continue;
    }
    let name: string;
    let inline: string | undefined;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      inline = eq >= 0 ? a.slice(eq + 1) : undefined;
    } else {
      const long = byShort.get(a.slice(1));
      if (!long) throw new UsageError(`unknown option ${a}`);
      name = long;
    }
    const s = spec[name];
    if (!s) throw new UsageError(`unknown option --${name}`);
    let value = 'true';
    if (s.value) {
      if (inline !== undefined) value = inline;
      else if (i < argv.length) value = argv[i++];
      else throw new UsageError(`--${name} needs a value`);
      if (s.choices && !s.choices.includes(value)) {
        throw new UsageError(`--${name} must be one of ${s.choices.join(', ')} (got "${value}")`);
      }
    } else if (inline !== undefined) {
      throw new UsageError(`--${name} takes no value`);
    }
    const list = flags.get(name) ?? [];
    if (list.length > 0 && !s.multiple) throw new UsageError(`--${name} given twice`);
    list.push(value);
    flags.set(name, list);
  }
  return { positionals, flags };
}

export function flag(args: ParsedArgs, name: string): string | undefined {
  return args.flags.get(name)?.[0];
}

export function flagAll(args: ParsedArgs, name: string): string[] {
  return args.flags.get(name) ?? [];
}

export function hasFlag(args: ParsedArgs, name: string): boolean {
  return args.flags.has(name);
}

/** A non-negative integer flag, or the default. */
export function intFlag(args: ParsedArgs, name: string, def: number): number {
  const v = flag(args, name);
  if (v === undefined) return def;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number (got "${v}")`);
  return Number(v);
}

/** `-p PID` of the live-process commands: a positive whole number, else a usage error. */
export function pidFlag(args: ParsedArgs, command: string): number {
  const v = flag(args, 'process-id');
  if (!v || !/^\d+$/.test(v) || Number(v) === 0) throw new UsageError(`${command} needs -p PID (a process id; see heapscope ps)`);
  return Number(v);
}
