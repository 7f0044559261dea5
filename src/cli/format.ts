/** Small text formatting helpers shared by ls, watch and demo. */
import { wcwidth } from '../vt/width.ts';

/** A duration in ms as '4s', '3m12s', '2h05m'. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/**
 * How many terminal cells `text` takes: each code point's {@link wcwidth} (a CJK character or
 * an emoji takes 2, a combining mark 0). `text` is printable (no controls).
 */
export function cells(text: string): number {
  let n = 0;
  for (const ch of text) n += wcwidth(ch.codePointAt(0)!);
  return n;
}

/** Cuts `text` to at most `width` cells (an ellipsis, 1 cell, when cut). */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  if (cells(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = wcwidth(ch.codePointAt(0)!);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return out + '…';
}

/** `text` cut to `width` cells and padded with spaces to exactly `width` cells. */
export function padCells(text: string, width: number): string {
  const cut = fit(text, width);
  return cut + ' '.repeat(Math.max(0, width - cells(cut)));
}
