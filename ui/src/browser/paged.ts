import { useEffect, useRef, useState } from "react";
import { errorText } from "../ipc";

/** One page of a list as read: its items, and whether more may follow. */
export interface Page<T> {
  items: T[];
  more: boolean;
  /** How many there are in all, when the source says. */
  total?: number;
}

/** A list read a page at a time. */
export interface PagedList<T> {
  items: T[];
  more: boolean;
  total: number | null;
  loading: boolean;
  error: string | null;
  /** Reads the next page and appends what it adds. */
  loadMore: () => void;
  /** Changes the items read (an item changed or removed here, before the next read shows
   * it), and the total by `totalBy`. */
  update: (change: (items: T[]) => T[], totalBy?: number) => void;
}

/** Appends `page` to `items`, keeping the first copy of each key (a row that moved between two
 * reads is not shown twice). */
export function mergeByKey<T>(items: T[], page: T[], key: (item: T) => string): T[] {
  const known = new Set(items.map(key));
  return [...items, ...page.filter((item) => !known.has(key(item)))];
}

/** A list read a page at a time: `read(0)` again whenever `deps` change (an answer to an older
 * read is dropped), `read(items.length)` appended on `loadMore`, each item once by `key`. */
export function usePagedList<T>(read: (offset: number) => Promise<Page<T>>, key: (item: T) => string, deps: unknown[]): PagedList<T> {
  const [items, setItems] = useState<T[]>([]);
  const [more, setMore] = useState(false);
  const [total, setTotal] = useState<number | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  // The read of the current deps (loadMore reads with the filters shown).
  const reader = useRef(read);
  reader.current = read;
  const generation = useRef(0);

  useEffect(() => {
    const mine = ++generation.current;
    setLoading(true);
    reader.current(0).then(
      (page) => {
        if (mine !== generation.current) return;
        setItems(page.items);
        setMore(page.more);
        setTotal(page.total ?? null);
        setError(null);
        setLoading(false);
      },
      (e) => {
        if (mine !== generation.current) return;
        setError(errorText(e));
        setLoading(false);
      },
    );
  }, deps);

  const loadMore = () => {
    const mine = generation.current;
    setLoading(true);
    reader.current(items.length).then(
      (page) => {
        if (mine !== generation.current) return;
        setItems((list) => mergeByKey(list, page.items, key));
        setMore(page.more);
        if (page.total !== undefined) setTotal(page.total);
        setLoading(false);
      },
      (e) => {
        if (mine !== generation.current) return;
        setError(errorText(e));
        setLoading(false);
      },
    );
  };

  const update = (change: (items: T[]) => T[], totalBy = 0) => {
    setItems(change);
    if (totalBy !== 0) setTotal((t) => (t === null ? t : Math.max(0, t + totalBy)));
  };

  return { items, more, total, loading, error, loadMore, update };
}
