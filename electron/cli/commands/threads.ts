import { threadFlags, type DumpFrameRoot } from '../../../shared/formats/dump/dump-queries.js';
import { flag, UsageError } from '../args.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { renderTable } from '../output.js';
import { escapeControl } from '../terminal-text.js';
import { queryDumpFile } from './dump-query-common.js';

/**
 * `heapscope threads FILE`: the managed threads of a process dump with their flags, current
 * exception and managed stack, and for each frame the objects it roots (DumpThread in
 * shared/formats/dump/dump-queries.ts).
 */
export const threadsCommand: CliCommand = {
  name: 'threads',
  summary: 'List the managed threads of a process dump with their stacks and the objects each frame roots.',
  usage: 'heapscope threads FILE [--format table|json]',
  details: [
    'FILE must be a process dump; other files give dump/not-a-dump. Frames are innermost first (at most 500 per',
    'thread); a frame\'s roots are the objects the GC finds in its stack slots and registers (an object can be listed',
    'twice: a register and a slot). The table lists threads, then each stack with its roots indented.',
    'name is Thread.Name (the managed Thread object\'s _name; null when unnamed), managedObject that object\'s address.',
    'JSON: {file, threads[{osThreadId, managedThreadId, name, managedObject, address, alive, background, gc, finalizer, threadPool, gcMode,',
    'state[], exception{type, message, address, hresult}|null, frames[{kind, method, frameName, module,',
    'instructionPointer, stackPointer, roots[{address, type, interior, pinned, register?}]}], otherRoots[], framesTruncated}]}.',
  ].join('\n'),
  flags: { format: { value: true, choices: ['table', 'json'] } },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('threads takes exactly one FILE');
    const { name, result } = await queryDumpFile(args.positionals[0], 'threads', { query: 'threads' });
    if (flag(args, 'format') === 'json') {
      io.stdout.write(JSON.stringify({ file: name, threads: result.threads }, null, 2) + '\n');
      return EXIT_OK;
    }
    const e = escapeControl;
    io.stdout.write(`${e(name)}: ${result.threads.length} managed threads\n\n`);
    io.stdout.write(
      renderTable(result.threads, [
        { header: 'Managed id', key: 'managedThreadId', value: (t) => t.managedThreadId, numeric: true },
        { header: 'OS id', key: 'osThreadId', value: (t) => `0x${t.osThreadId.toString(16)}` },
        { header: 'Name', key: 'name', value: (t) => e(t.name ?? '') },
        { header: 'Flags', key: 'flags', value: threadFlags },
        { header: 'Frames', key: 'frames', value: (t) => t.frames.filter((f) => f.kind === 'managed').length, numeric: true },
        { header: 'Exception', key: 'exception', value: (t) => (t.exception ? `${t.exception.type}: ${t.exception.message ?? ''}` : '') },
      ]),
    );
    const root = (r: DumpFrameRoot) => `      ${e(r.type)} @ ${r.address}${r.interior ? ' (interior)' : ''}${r.pinned ? ' (pinned)' : ''}\n`;
    for (const t of result.threads) {
      io.stdout.write(`\nThread ${t.managedThreadId}${t.name ? ` "${e(t.name)}"` : ''} (OS 0x${t.osThreadId.toString(16)}, ${threadFlags(t)})\n`);
      if (t.exception) io.stdout.write(`  exception ${e(t.exception.type)}: ${e(t.exception.message ?? '')} @ ${t.exception.address}\n`);
      for (const f of t.frames) {
        const what = f.method !== null ? `${e(f.method)}${f.module ? `  [${e(f.module)}]` : ''}` : `[${e(f.frameName ?? f.kind)}]`;
        io.stdout.write(`  ${what}\n`);
        for (const r of f.roots) io.stdout.write(root(r));
      }
      if (t.framesTruncated) io.stdout.write('  … (deeper frames not listed)\n');
      if (t.otherRoots.length > 0) io.stdout.write('  roots of unlisted frames:\n');
      for (const r of t.otherRoots) io.stdout.write(root(r));
    }
    return EXIT_OK;
  },
};
