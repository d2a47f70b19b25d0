/**
 * The default of `heapscope mcp --max-open`, in a module of its own: commands/mcp.ts imports it
 * statically, so anything else here would be parsed by every CLI command (the MCP server, its
 * SDK and zod are loaded on demand only).
 */
export const DEFAULT_MAX_OPEN = 4;
