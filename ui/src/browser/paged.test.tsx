import { act, renderHook, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { mergeByKey, type Page, usePagedList } from "./paged";

interface Row {
  id: string;
  v: number;
}

/** A source whose reads answer when the test says, in any order. */
function source() {
  const pending: { offset: number; filter: string; answer: (page: Page<Row>) => void; fail: (e: unknown) => void }[] = [];
  const read = (filter: string) => (offset: number) =>
    new Promise<Page<Row>>((answer, fail) => {
      pending.push({ offset, filter, answer, fail });
    });
  return { pending, read };
}

const rows = (...ids: string[]): Row[] => ids.map((id, v) => ({ id, v }));

describe("usePagedList", () => {
  it("reads the first page, appends further ones with each item once, and says when there is no more", async () => {
    const s = source();
    const { result } = renderHook(() => usePagedList(s.read("all"), (r: Row) => r.id, ["all"]));
    expect(result.current.loading).toBe(true);
    await act(async () => s.pending[0].answer({ items: rows("a", "b"), more: true, total: 3 }));
    expect(result.current.items.map((r) => r.id)).toEqual(["a", "b"]);
    expect([result.current.more, result.current.total, result.current.loading]).toEqual([true, 3, false]);
    act(() => result.current.loadMore());
    expect(s.pending[1].offset).toBe(2);
    // "b" moved down between the reads: shown once.
    await act(async () => s.pending[1].answer({ items: rows("b", "c"), more: false }));
    expect(result.current.items.map((r) => r.id)).toEqual(["a", "b", "c"]);
    expect([result.current.more, result.current.total]).toEqual([false, 3]);
    act(() => result.current.update((list) => list.filter((r) => r.id !== "a"), -1));
    expect(result.current.items.map((r) => r.id)).toEqual(["b", "c"]);
    expect(result.current.total).toBe(2);
  });

  it("drops an answer to a read made before the filters changed", async () => {
    const s = source();
    const { result, rerender } = renderHook(({ filter }) => usePagedList(s.read(filter), (r: Row) => r.id, [filter]), { initialProps: { filter: "old" } });
    await act(async () => s.pending[0].answer({ items: rows("o1"), more: true }));
    act(() => result.current.loadMore());
    rerender({ filter: "new" });
    expect(s.pending[2].filter).toBe("new");
    await act(async () => s.pending[2].answer({ items: rows("n1"), more: false }));
    // The old filter's second page answers last: not mixed into the new list.
    await act(async () => s.pending[1].answer({ items: rows("o2"), more: false }));
    expect(result.current.items.map((r) => r.id)).toEqual(["n1"]);
  });

  it("shows a failed read and keeps what was read", async () => {
    const s = source();
    const { result } = renderHook(() => usePagedList(s.read("all"), (r: Row) => r.id, ["all"]));
    await act(async () => s.pending[0].answer({ items: rows("a"), more: true }));
    act(() => result.current.loadMore());
    await act(async () => s.pending[1].fail(new Error("the catalog cannot be reached")));
    await waitFor(() => expect(result.current.error).toContain("the catalog cannot be reached"));
    expect(result.current.items.map((r) => r.id)).toEqual(["a"]);
    expect(result.current.loading).toBe(false);
  });
});

describe("mergeByKey", () => {
  it("keeps the first copy of each key", () => {
    expect(mergeByKey(rows("a", "b"), rows("b", "c"), (r) => r.id).map((r) => r.id)).toEqual(["a", "b", "c"]);
  });
});
