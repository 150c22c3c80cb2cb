import { useCallback, useEffect, useRef, useState } from "react";
import { artifactModelShared, artifactSetModelShared, errorText } from "../ipc";

export type Notice = { kind: "ok" | "error"; text: string };

/** Actions on one file at a time per file: `busy[id]` says what runs on it meanwhile, and an
 * error becomes a notice. */
export function useItemActions(onNotice: (notice: Notice) => void) {
  const [busy, setBusy] = useState<Record<string, string>>({});
  const act = async (id: string, label: string, action: () => Promise<void>) => {
    setBusy((b) => ({ ...b, [id]: label }));
    try {
      await action();
    } catch (e) {
      onNotice({ kind: "error", text: errorText(e) });
    } finally {
      setBusy((b) => {
        const rest = { ...b };
        delete rest[id];
        return rest;
      });
    }
  };
  return { busy, act };
}

/** Whether AI hosts' models behind the proxy may use each file of this machine (find it with
 * `search_artifacts`, send it to tools by reference): read per file when its actions are shown,
 * set optimistically (back as it was, and an error notice, if the store refuses). `reread` reads
 * again every file asked about (the proxy may have returned one to a model since). */
export function useModelShared(onNotice: (notice: Notice) => void) {
  const [shared, setShared] = useState<Record<string, boolean>>({});
  const [pending, setPending] = useState<Record<string, true>>({});
  const asked = useRef(new Set<string>());
  const writing = useRef(new Set<string>());
  const read = useCallback((id: string) => {
    artifactModelShared(id).then(
      (value) => {
        if (!writing.current.has(id)) setShared((s) => (s[id] === value ? s : { ...s, [id]: value }));
      },
      // Unknown: no toggle for it (a later showing asks again).
      () => asked.current.delete(id),
    );
  }, []);
  const load = useCallback(
    (id: string) => {
      if (asked.current.has(id)) return;
      asked.current.add(id);
      read(id);
    },
    [read],
  );
  const reread = useCallback(() => {
    for (const id of asked.current) read(id);
  }, [read]);
  const toggle = async (id: string) => {
    const was = shared[id];
    if (was === undefined || pending[id]) return;
    writing.current.add(id);
    setShared((s) => ({ ...s, [id]: !was }));
    setPending((p) => ({ ...p, [id]: true }));
    try {
      await artifactSetModelShared(id, !was);
    } catch (e) {
      setShared((s) => ({ ...s, [id]: was }));
      onNotice({ kind: "error", text: errorText(e) });
    } finally {
      writing.current.delete(id);
      setPending((p) => {
        const rest = { ...p };
        delete rest[id];
        return rest;
      });
    }
  };
  return { shared, pending, load, reread, toggle };
}

export type ModelShared = ReturnType<typeof useModelShared>;

/** The toggle "Let AI hosts use" / "Stop AI hosts using" of one file; asks the state as it shows,
 * and shows nothing until it is known. */
export function ModelShareButton({ id, name, model }: { id: string; name: string; model: ModelShared }) {
  const { load } = model;
  useEffect(() => load(id), [load, id]);
  const shared = model.shared[id];
  if (shared === undefined) return null;
  return (
    <button
      type="button"
      onClick={() => void model.toggle(id)}
      disabled={Boolean(model.pending[id])}
      aria-pressed={shared}
      aria-label={shared ? `Stop AI hosts using ${name}` : `Let AI hosts use ${name}`}
      title={
        shared
          ? "AI hosts' models behind the MCP Canvas proxy may find this file (search_artifacts) and send it to tools by reference. Stop: take it back."
          : "Let AI hosts' models behind the MCP Canvas proxy find this file (search_artifacts) and send it to tools by reference. By default only files the proxy returned to a model are theirs."
      }
    >
      {shared ? "Stop AI hosts using" : "Let AI hosts use"}
    </button>
  );
}

/** The browser's one-line notice, dismissable. */
export function NoticeLine({ notice, onDismiss }: { notice: Notice; onDismiss: () => void }) {
  return (
    <p className={`browser-notice ${notice.kind}`} role={notice.kind === "error" ? "alert" : "status"}>
      <span>{notice.text}</span>
      <button type="button" aria-label="Dismiss" onClick={onDismiss}>
        ×
      </button>
    </p>
  );
}
