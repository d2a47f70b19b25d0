import { intFlag, UsageError } from '../args.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { DEFAULT_MAX_OPEN } from '../mcp/limits.js';

/**
 * `heapscope mcp`: serve the analyses to AI assistants over the Model Context Protocol (stdio).
 * The SDK is imported here, on demand, so no other command pays for loading it.
 */
export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: 'Serve snapshots to AI assistants over the Model Context Protocol (stdio): open, summary, top types, dominators, paths, diff, inspections.',
  usage: 'heapscope mcp [--max-open N]',
  details: [
    'Speaks MCP (JSON-RPC) on stdin/stdout until the client closes stdin; logs go to stderr.',
    'Tools: open_snapshot, summary, top_types, dominators, paths_to_roots, diff, inspections, suspects, close_snapshot.',
    'Results are compact JSON, sizes in bytes; retained sizes are exact (dominator tree). Lists are paged (offset/limit).',
    'Each open snapshot has a worker thread of its own: other requests are answered while a file opens,',
    '  and a cancelled request (notifications/cancelled) stops its work (a cancelled open frees its slot).',
    `--max-open N: snapshots open at once (default ${DEFAULT_MAX_OPEN}); one more is the tool error mcp/too-many-snapshots.`,
    '  Each open snapshot holds its graph and analysis in memory until close_snapshot.',
    'Setup for Claude Desktop, Claude Code, VS Code and Cursor: see the README.',
  ].join('\n'),
  flags: { 'max-open': { value: true } },
  async run(args, io) {
    if (args.positionals.length !== 0) throw new UsageError('mcp takes no FILE: snapshots are opened with the open_snapshot tool');
    const maxOpen = intFlag(args, 'max-open', DEFAULT_MAX_OPEN);
    if (maxOpen < 1) throw new UsageError('--max-open must be at least 1');
    const { serveMcp } = await import('../mcp/server.js');
    await serveMcp({ maxOpen, stdin: process.stdin, stdout: process.stdout, stderr: io.stderr, version: '0.1.0' });
    return EXIT_OK;
  },
};
