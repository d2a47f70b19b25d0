import { docLocation, type DocumentState } from '../../stores/documents';

/**
 * Words and scroll arithmetic of the tab strip (TabStrip.vue), pure so they are unit-tested.
 *
 * A tab's title is the file name, plus " — AppDomain" for one section of a multi-section CF heap
 * log (documents.ts), so two tabs of one log differ by their AppDomain: the label keeps that part
 * whole and shortens the file name instead, and the tooltip starts with the whole title (the
 * path alone is the same for both).
 */
export const SECTION_SEPARATOR = ' — ';
const MAX_LABEL = 30;
const MAX_DOMAIN = 22;

/** Shortens in the middle, keeping both ends: long capture names share prefixes (app_20231108_150515 vs app_20231108_150644). */
export function middleEllipsis(s: string, max: number): string {
  if (s.length <= max) return s;
  const tail = Math.ceil((max - 1) * 0.65);
  return `${s.slice(0, max - 1 - tail)}…${s.slice(-tail)}`;
}

/** The tab's visible name: the title within 30 characters; an AppDomain part is kept whole up to 22 and the file name gets the rest (at least 8). */
export function tabLabel(title: string): string {
  if (title.length <= MAX_LABEL) return title;
  const at = title.lastIndexOf(SECTION_SEPARATOR);
  if (at < 0) return middleEllipsis(title, MAX_LABEL);
  const domain = middleEllipsis(title.slice(at + SECTION_SEPARATOR.length), MAX_DOMAIN);
  const room = Math.max(8, MAX_LABEL - domain.length - SECTION_SEPARATOR.length);
  return `${middleEllipsis(title.slice(0, at), room)}${SECTION_SEPARATOR}${domain}`;
}

/** Tooltip: the whole title (with its AppDomain), where it comes from, and its state. */
export function tabTooltip(d: Pick<DocumentState, 'title' | 'file' | 'process'>, state: string): string {
  const where = docLocation(d as DocumentState);
  return [d.title, where && where !== d.title ? where : null, state].filter((x) => x).join('\n');
}

/**
 * The strip's scrollLeft that shows the item at [left, left + width) in a view `view` px wide
 * scrolled to `scroll`: unchanged when it is already in view, else the least move (an item wider
 * than the view shows its start).
 */
export function scrollToShow(left: number, width: number, scroll: number, view: number): number {
  if (left < scroll || width >= view) return left;
  if (left + width > scroll + view) return left + width - view;
  return scroll;
}
