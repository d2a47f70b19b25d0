import type { FlagSpec, ParsedArgs } from './args.js';
import type { Writer } from './output.js';

/**
 * One `heapscope <name>` command. Commands are a public contract (people script them in CI):
 * keep names, flags and JSON fields stable and document each in the README.
 */
export interface CliCommand {
  name: string;
  summary: string;
  /** One usage line, e.g. "heapscope info FILE [--format text|json]". */
  usage: string;
  /** More lines for `heapscope <command> --help` (what the figures mean, what a flag costs). */
  details?: string;
  flags: Record<string, FlagSpec>;
  run(args: ParsedArgs, io: CliIo): Promise<number>;
}

export interface CliIo {
  stdout: Writer;
  stderr: Writer;
}

/** Exit codes: documented in the README. */
export const EXIT_OK = 0;
export const EXIT_INTERNAL = 1;
export const EXIT_USAGE = 2;
export const EXIT_BAD_INPUT = 3;
export const EXIT_THRESHOLD = 4;
