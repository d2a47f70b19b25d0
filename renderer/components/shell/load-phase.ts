import type { DocumentState } from '../../stores/documents';
import { formatBytes } from '../grids/format';

/**
 * Words and a 0–1 fraction for a document's load state, shared by the tab strip, the status bar
 * and the loading panel so they never disagree.
 */
const PHASE_NAMES: Record<string, string> = {
  parse: 'Reading',
  read: 'Reading',
  resolve: 'Resolving object ids',
  retainers: 'Indexing references',
  dominators: 'Computing dominators',
  retained: 'Computing retained sizes',
  tree: 'Building the dominator tree',
  types: 'Summing retained size per type',
  generations: 'Assigning generations',
  paths: 'Finding paths to roots',
};

export function phaseLabel(d: DocumentState): string {
  if (d.kind === 'monitor') return 'GC monitor';
  if (d.capture && (d.phase === 'opening' || d.phase === 'parsing')) {
    const c = d.capture;
    return `Capturing: ${c.phase}${c.bytes > 0 ? ` · ${formatBytes(c.bytes)}` : ''}…`;
  }
  switch (d.phase) {
    case 'opening':
      return d.kind === 'capture' ? 'Connecting…' : 'Opening…';
    case 'parsing':
    case 'analysing': {
      const p = d.progress;
      if (!p) return d.phase === 'parsing' ? 'Reading…' : 'Analysing…';
      const name = PHASE_NAMES[p.phase] ?? capitalize(p.phase.replace(/[-_]/g, ' '));
      const pct = fraction(d);
      return pct === null ? `${name}…` : `${name} ${Math.floor(pct * 100)} %`;
    }
    case 'ready':
      return 'Ready';
    case 'failed':
      return 'Failed';
    case 'cancelled':
      return 'Cancelled';
  }
}

/** Progress of the current phase, or null when its total is unknown (indeterminate bar). */
export function fraction(d: DocumentState): number | null {
  const p = d.progress;
  if (!p || p.total <= 0) return null;
  return Math.max(0, Math.min(1, p.done / p.total));
}

export function isLoading(d: DocumentState): boolean {
  return d.phase === 'opening' || d.phase === 'parsing' || d.phase === 'analysing';
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
