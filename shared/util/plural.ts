/**
 * Counted nouns for UI and CLI text: "1 type", "2 types", "1,024 objects".
 *
 * The count is grouped with en-US separators like every other number the app prints. Irregular
 * plurals are passed explicitly (`plural(n, 'entry', 'entries')`); the default adds an "s".
 */
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** The noun alone, singular for exactly 1 (and -1), plural otherwise (0 types, 2 types). */
export function noun(n: number, singular: string, pluralForm = `${singular}s`): string {
  return Math.abs(n) === 1 ? singular : pluralForm;
}

/** "1 type", "0 types", "12,345 types". */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${grouped.format(n)} ${noun(n, singular, pluralForm)}`;
}

/** "1 node is", "3 nodes are": a counted subject with its verb. */
export function pluralIsAre(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${plural(n, singular, pluralForm)} ${Math.abs(n) === 1 ? 'is' : 'are'}`;
}

/** "1 reference was", "3 references were". */
export function pluralWasWere(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${plural(n, singular, pluralForm)} ${Math.abs(n) === 1 ? 'was' : 'were'}`;
}
