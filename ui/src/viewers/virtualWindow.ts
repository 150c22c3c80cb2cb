/** Which rows of a long list to render: the ones in view plus `overscan` on each side, and the
 * empty space above and below that keeps the scroll height right. Rows all have `rowHeight`. */
export interface RowWindow {
  /** First row rendered. */
  start: number;
  /** One past the last row rendered. */
  end: number;
  /** Height of the space above `start`. */
  padTop: number;
  /** Height of the space below `end`. */
  padBottom: number;
}

/** Assumed viewport height before the element has been measured. */
export const UNMEASURED_HEIGHT = 800;

export function rowWindow(scrollTop: number, viewportHeight: number, rowHeight: number, count: number, overscan = 8): RowWindow {
  if (count <= 0 || !(rowHeight > 0)) return { start: 0, end: 0, padTop: 0, padBottom: 0 };
  const height = viewportHeight > 0 ? viewportHeight : UNMEASURED_HEIGHT;
  const top = Math.max(0, Number.isFinite(scrollTop) ? scrollTop : 0);
  const first = Math.min(count - 1, Math.floor(top / rowHeight));
  const last = Math.ceil((top + height) / rowHeight);
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, Math.max(first + 1, last) + overscan);
  return { start, end, padTop: start * rowHeight, padBottom: (count - end) * rowHeight };
}

/** The scroll position that puts row `index` in the middle of the rows' part of the viewport
 * (below a sticky header of `offset` px), as near as the top allows; with no measured viewport,
 * the row at the top. */
export function scrollTopFor(index: number, rowHeight: number, viewportHeight: number, offset = 0): number {
  if (!(rowHeight > 0) || !Number.isFinite(index)) return 0;
  const top = Math.max(0, index) * rowHeight;
  if (!(viewportHeight > 0)) return top;
  return Math.max(0, Math.round(top - (viewportHeight - offset - rowHeight) / 2));
}
