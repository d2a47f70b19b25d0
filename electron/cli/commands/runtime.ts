import { flag, UsageError } from '../args.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { formatNumber, renderTable } from '../output.js';
import { escapeControl } from '../terminal-text.js';
import { dacMatchText } from '../../../shared/formats/dump/dump-queries.js';
import { queryDumpFile } from './dump-query-common.js';

/**
 * `heapscope runtime FILE`: the CLR of a process dump — version, flavor, the DAC file used,
 * pointer size, GC mode, AppDomains and modules (DumpRuntimeInfo in shared/formats/dump/dump-queries.ts).
 */
export const runtimeCommand: CliCommand = {
  name: 'runtime',
  summary: 'Show the .NET runtime of a process dump: CLR version, DAC, pointer size, AppDomains, modules.',
  usage: 'heapscope runtime FILE [--format table|json]',
  details: [
    'FILE must be a process dump (heapscope dump, dotnet-dump collect, createdump); other files give dump/not-a-dump.',
    'dacFile is the data-access library (DAC) the dump reader loaded for the dump\'s runtime; dac says where it came from',
    'and what ties it to the dump: matchedBy build-id (the runtime library beside it has the dump\'s runtime build id),',
    'version (the DAC\'s file version equals the dump\'s runtime version) or none (loaded with mismatches ignored).',
    'JSON: {file, clrVersion, flavor, runtimeModule, dacFile, dac{file, source, candidate, matchedBy, dacVersion, runtimeVersion,',
    'runtimeBuildId, localRuntimeBuildId}, dacCandidates[{file, platform, architecture, buildId, indexTimeStamp, indexFileSize, onDisk}],',
    'pointerSize, architecture, platform, processId,',
    'serverGC, heapCount, threadCount, appDomains[{id, name, kind, address, moduleCount}],',
    'modules[{name, assemblyName, size, imageBase, isDynamic, isPEFile, appDomainId}]} (addresses are hex strings).',
  ].join('\n'),
  flags: { format: { value: true, choices: ['table', 'json'] } },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('runtime takes exactly one FILE');
    const { name, result: r } = await queryDumpFile(args.positionals[0], 'runtime', { query: 'runtime' });
    if (flag(args, 'format') === 'json') {
      io.stdout.write(JSON.stringify({ file: name, ...r }, null, 2) + '\n');
      return EXIT_OK;
    }
    const e = escapeControl;
    const lines = [
      `${e(name)}: .NET ${e(r.clrVersion)} (${e(r.flavor)}), ${r.pointerSize * 8}-bit ${e(r.architecture)} ${e(r.platform)}, process ${r.processId}`,
      `runtime     ${e(r.runtimeModule)}`,
      `DAC         ${r.dacFile === null ? '(none found on this machine)' : e(r.dacFile)}`,
      ...(r.dac ? [`            ${e(dacMatchText(r.dac))}`] : []),
      `GC          ${r.serverGC ? 'server' : 'workstation'}, ${r.heapCount} heap${r.heapCount === 1 ? '' : 's'}; ${r.threadCount} managed threads`,
      '',
      'AppDomains',
    ];
    io.stdout.write(lines.join('\n') + '\n');
    io.stdout.write(
      renderTable(r.appDomains, [
        { header: 'Id', key: 'id', value: (d) => d.id, numeric: true },
        { header: 'Name', key: 'name', value: (d) => d.name },
        { header: 'Kind', key: 'kind', value: (d) => d.kind },
        { header: 'Modules', key: 'moduleCount', value: (d) => d.moduleCount, numeric: true },
        { header: 'Address', key: 'address', value: (d) => d.address },
      ]),
    );
    io.stdout.write(`\nModules (${r.modules.length})\n`);
    io.stdout.write(
      renderTable(r.modules, [
        { header: 'Size', key: 'size', value: (m) => m.size, numeric: true, text: (m) => formatNumber(m.size) },
        { header: 'Base', key: 'imageBase', value: (m) => m.imageBase },
        { header: 'Module', key: 'name', value: (m) => (m.isDynamic ? `${m.name || m.assemblyName} (dynamic)` : m.name) },
      ]),
    );
    return EXIT_OK;
  },
};
