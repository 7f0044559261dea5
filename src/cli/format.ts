/** Small text formatting helpers shared by ls, watch and demo. */

/** A duration in ms as '4s', '3m12s', '2h05m'. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Cuts `text` to `width` cells (ASCII-safe estimate; an ellipsis when cut). */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = [...text];
  return chars.length <= width ? text : chars.slice(0, Math.max(0, width - 1)).join('') + '…';
}
