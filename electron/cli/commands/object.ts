import type { DumpField } from '../../../shared/formats/dump/dump-queries.js';
import { flag, intFlag, UsageError } from '../args.js';
import { EXIT_OK, type CliCommand } from '../command.js';
import { formatNumber, renderTable } from '../output.js';
import { escapeControl } from '../terminal-text.js';
import { queryDumpFile } from './dump-query-common.js';

/**
 * `heapscope object FILE --address HEX`: one object of a process dump with its fields, declared
 * types and values; arrays with length and first elements (DumpObject in
 * shared/formats/dump/dump-queries.ts).
 */
export const objectCommand: CliCommand = {
  name: 'object',
  summary: 'Show one object of a process dump: type, size, generation, fields with values, array elements.',
  usage: 'heapscope object FILE --address HEX [--elements N] [--chars N] [--format table|json]',
  details: [
    'FILE must be a process dump; other files give dump/not-a-dump. An address that is not the start of an object on',
    'the managed heap is object/not-found. Values: numbers, booleans, chars, enums by name, strings (at most --chars',
    'UTF-16 units, default 1,024), references as type @ address, embedded structs with their fields (a decimal also',
    'with its value). Arrays list the first --elements elements (default 20, at most 1,000). 64-bit integers, and enum',
    'values past 2^53, are decimal strings in JSON. A declared type the runtime never loaded is named from metadata.',
    'JSON: {file, address, type, methodTable, module, size, generation, string{value, length, truncated}|null,',
    'array{length, rank, elementType, elements[value], truncated}|null, fields[{name, declaredType, offset, value}]};',
    'a value is {kind: primitive|enum|string|reference|null|struct|unreadable, text, …} (README lists the fields of each kind).',
  ].join('\n'),
  flags: { address: { value: true }, elements: { value: true }, chars: { value: true }, format: { value: true, choices: ['table', 'json'] } },
  async run(args, io) {
    if (args.positionals.length !== 1) throw new UsageError('object takes exactly one FILE');
    const address = flag(args, 'address');
    if (address === undefined || !/^(0x)?[0-9a-f]+$/i.test(address)) throw new UsageError('object needs --address HEX (e.g. --address 0x7f2c1c00a2b0)');
    const elements = intFlag(args, 'elements', 20);
    const chars = intFlag(args, 'chars', 1024);
    if (elements < 0 || elements > 1000) throw new UsageError('--elements must be between 0 and 1000');
    if (chars < 0) throw new UsageError('--chars must be 0 or more');
    const { name, result: o } = await queryDumpFile(args.positionals[0], 'object', { query: 'object', address, elements, chars });
    if (flag(args, 'format') === 'json') {
      io.stdout.write(JSON.stringify({ file: name, ...o }, null, 2) + '\n');
      return EXIT_OK;
    }
    const e = escapeControl;
    io.stdout.write(`${o.address} ${e(o.type)}: ${formatNumber(o.size)} bytes, ${o.generation}${o.module ? `, module ${e(o.module)}` : ''}\n`);
    if (o.string) io.stdout.write(`string (${formatNumber(o.string.length)} chars${o.string.truncated ? ', cut' : ''}): ${e(JSON.stringify(o.string.value))}\n`);
    if (o.fields.length > 0) io.stdout.write('\n' + renderTable(flatten(o.fields), FIELD_COLUMNS));
    if (o.array) {
      const a = o.array;
      io.stdout.write(`\narray of ${formatNumber(a.length)} ${e(a.elementType)}${a.rank > 1 ? ` (rank ${a.rank})` : ''}${a.truncated ? `, first ${a.elements.length}` : ''}\n`);
      a.elements.forEach((v, i) => io.stdout.write(`  [${i}] ${e(v.text)}\n`));
    }
    return EXIT_OK;
  },
};

interface FieldRow {
  name: string;
  declaredType: string;
  text: string;
}

const FIELD_COLUMNS = [
  { header: 'Field', key: 'name', value: (r: FieldRow) => r.name },
  { header: 'Type', key: 'declaredType', value: (r: FieldRow) => r.declaredType },
  { header: 'Value', key: 'value', value: (r: FieldRow) => r.text },
];

/** Fields of embedded structs as "outer.inner" rows. */
function flatten(fields: DumpField[], prefix = ''): FieldRow[] {
  const rows: FieldRow[] = [];
  for (const f of fields) {
    rows.push({ name: prefix + f.name, declaredType: f.declaredType, text: f.value.text });
    if (f.value.kind === 'struct') rows.push(...flatten(f.value.fields, `${prefix}${f.name}.`));
  }
  return rows;
}
