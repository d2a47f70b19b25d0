import { flag, hasFlag, intFlag, UsageError } from '../args.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { locateRenderer } from '../../host/app-paths.js';
import { serveBrowserMode } from '../../server/serve.js';
import { resolveWorkerScripts } from '../../workers/worker-scripts.js';

/**
 * `heapscope serve [FILES...]`: the desktop UI in a browser tab, served from 127.0.0.1 with a
 * random token (browser mode). Runs until Ctrl+C. The files given are validated now (a file that
 * is not a snapshot is reported and skipped), listed on the Welcome page and opened as tabs by the
 * first page that connects (`--list-only`: listed only). Reloads restore the page's own tabs.
 */
export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'Open the Heapscope UI in your browser, FILES as tabs (local server on 127.0.0.1 with a random token; --list-only: only list FILES).',
  usage: 'heapscope serve [FILES...] [--port N] [--no-open] [--list-only]',
  flags: {
    port: { value: true },
    'no-open': {},
    'list-only': {},
  },
  async run(args, io) {
    const port = intFlag(args, 'port', 0);
    if (port > 65535) throw new UsageError(`--port must be at most 65535 (got ${flag(args, 'port')})`);
    const serving = await serveBrowserMode({
      files: args.positionals,
      listOnly: hasFlag(args, 'list-only'),
      port,
      open: !hasFlag(args, 'no-open') && !process.env.HEAPSCOPE_NO_OPEN,
      rendererDir: locateRenderer(import.meta.url),
      scripts: resolveWorkerScripts(import.meta.url),
      stdout: io.stdout,
      stderr: io.stderr,
    });
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await serving.stop();
    return EXIT_OK;
  },
};
