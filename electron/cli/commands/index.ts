import type { CliCommand } from '../command.js';
import { infoCommand } from './info.js';
import { reportCommand } from './report.js';
import { dominatorsCommand } from './dominators.js';
import { pathsCommand } from './paths.js';
import { generationsCommand } from './generations.js';
import { diffCommand } from './diff.js';
import { trendCommand } from './trend.js';
import { domainsCommand } from './domains.js';
import { gcTimelineCommand } from './gc-timeline.js';
import { convertCommand } from './convert.js';
import { psCommand } from './ps.js';
import { collectCommand } from './collect.js';
import { monitorCommand } from './monitor.js';
import { dumpCommand } from './dump.js';
import { serveCommand } from './serve.js';
import { inspectCommand } from './inspect.js';
import { mcpCommand } from './mcp.js';
import { suspectsCommand } from './suspects.js';
import { stringsCommand } from './strings.js';
import { runtimeCommand } from './runtime.js';
import { threadsCommand } from './threads.js';
import { objectCommand } from './object.js';

/**
 * Every CLI command, in the order `heapscope --help` lists them: snapshot analysis, then traces and
 * legacy logs, then live processes, then the UI and the MCP server for AI assistants. Each command file adds itself here.
 */
export const COMMANDS: CliCommand[] = [
  infoCommand,
  reportCommand,
  dominatorsCommand,
  inspectCommand,
  suspectsCommand,
  pathsCommand,
  generationsCommand,
  stringsCommand,
  diffCommand,
  trendCommand,
  domainsCommand,
  gcTimelineCommand,
  convertCommand,
  psCommand,
  collectCommand,
  dumpCommand,
  runtimeCommand,
  threadsCommand,
  objectCommand,
  monitorCommand,
  serveCommand,
  mcpCommand,
];
