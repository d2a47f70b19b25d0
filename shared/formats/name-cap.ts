/**
 * The cap on names every reader applies (type, module, field, machine and process names, strings
 * in metadata): a longer name keeps its first MAX_NAME_CHARS UTF-16 code units and ends in
 * NAME_CUT_MARK, and the reader counts it as a 'malformed-record' problem where it has a graph.
 *
 * Why: a name is copied into every report row, tree line and tooltip that shows it, so one
 * hostile 16M-character type name made `report` fail with "Invalid string length" and
 * `dominators` run out of memory. Real names, long generic instantiations included, stay far
 * below 16 Ki characters.
 */

export const MAX_NAME_CHARS = 16 * 1024;

/** Longer texts (a gcdump's collection log) are cut the same way at this many code units. */
export const MAX_TEXT_CHARS = 1024 * 1024;

/** Appended to a cut string. */
export const NAME_CUT_MARK = '…';

/**
 * `s` cut to `maxChars` code units plus NAME_CUT_MARK when longer (without leaving half a
 * surrogate pair before the mark), else `s` itself.
 */
export function capName(s: string, maxChars = MAX_NAME_CHARS): string {
  if (s.length <= maxChars) return s;
  let keep = maxChars;
  const last = s.charCodeAt(keep - 1);
  if (last >= 0xd800 && last <= 0xdbff) keep--;
  return s.slice(0, keep) + NAME_CUT_MARK;
}

/** The problem message for `n` cut names, the longest of them `longest` code units. */
export function namesCutMessage(n: number, longest: number, where: string): string {
  return `${n} ${where} longer than ${MAX_NAME_CHARS} characters were cut and end in "${NAME_CUT_MARK}" (the longest had ${longest})`;
}
