import type { CliCommand } from '../command.js';
import { psCommand } from './ps.js';

/** Every CLI command, in the order `heapscope --help` lists them. Each command file adds itself here. */
export const COMMANDS: CliCommand[] = [
  psCommand,
];
