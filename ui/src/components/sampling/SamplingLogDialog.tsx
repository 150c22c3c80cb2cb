import { useCallback, useEffect, useState } from "react";
import { errorText, samplingLog } from "../../ipc";
import type { Decision } from "../../wire/Decision";
import type { ExchangeRecord } from "../../wire/ExchangeRecord";
import type { SamplingMessage } from "../../wire/SamplingMessage";
import { LogDialogFrame } from "../LogDialogFrame";
import { blocksOf, Messages } from "./blocks";

interface Props {
  server: string;
  onClose: () => void;
}

type LogState = { kind: "loading" } | { kind: "ready"; records: ExchangeRecord[] } | { kind: "failed"; error: string };

const DECISION_WORDS: Record<Decision, string> = {
  automatic: "answered (always)",
  approved: "approved",
  edited: "approved, edited",
  response_edited: "answer edited",
  rejected: "rejected",
  refused: "refused",
  failed: "failed",
};

/** One line of what came back: text as is, a tool call by name, an error as the error. */
export function answerLine(record: ExchangeRecord): string {
  if (!record.response) return record.error ?? "";
  return blocksOf(record.response.content)
    .map((b) => (b.type === "text" ? b.text : b.type === "tool_use" ? `${b.name}(${JSON.stringify(b.input)})` : `[${b.type}]`))
    .join(" ")
    .replace(/\s+/g, " ");
}

/** The exchange's messages for history (2 raw, 3 structured), else the request and the answer. */
function conversation(record: ExchangeRecord): SamplingMessage[] {
  if (record.exchange) return record.exchange.messages;
  const sent = (record.editedRequest ?? record.request).messages;
  return record.response ? [...sent, { role: record.response.role, content: record.response.content }] : sent;
}

/** One exchange: a summary line, and when opened everything that was asked and answered (also
 * in the team's audit view). */
export function Exchange({ record }: { record: ExchangeRecord }) {
  const request = record.editedRequest ?? record.request;
  const failed = record.decision === "rejected" || record.decision === "refused" || record.decision === "failed";
  const tokens = record.usage.inputTokens + record.usage.outputTokens > 0 ? `${record.usage.inputTokens}→${record.usage.outputTokens} tokens` : null;
  return (
    <li className={`sampling-log-entry${failed ? " failed" : ""}`} data-decision={record.decision}>
      <details>
        <summary>
          <span className="sampling-log-when">{new Date(record.atMs).toLocaleString()}</span>{" "}
          <span className={`badge ${failed ? "danger" : "sampling-badge"}`}>{DECISION_WORDS[record.decision]}</span>{" "}
          {record.structured ? <span className="badge">__schema__</span> : null}{" "}
          <span className="small muted">
            {[record.model ? `${record.provider}/${record.model}` : null, record.latencyMs > 0 ? `${record.latencyMs} ms` : null, tokens].filter(Boolean).join(" · ")}
          </span>
          <span className="sampling-log-answer">{answerLine(record)}</span>
        </summary>
        {request.systemPrompt ? (
          <>
            <p className="eyebrow">System prompt</p>
            <p className="sampling-text">{request.systemPrompt}</p>
          </>
        ) : null}
        {record.editedRequest ? <p className="small muted">The request went to the model changed — edited, or capped by policy; shown as sent.</p> : null}
        <p className="eyebrow">{record.exchange ? `Messages for history (${record.exchange.messages.length})` : "Messages"}</p>
        <Messages messages={conversation(record)} labels={record.exchange?.messages.length === 3 ? ["", "", "acknowledgement"] : undefined} />
        {record.exchange?.parsed !== undefined ? (
          <>
            <p className="eyebrow">Parsed</p>
            <pre className="sampling-log-parsed">{JSON.stringify(record.exchange.parsed, null, 2)}</pre>
          </>
        ) : null}
        {record.error ? <p className="error small">{record.error}</p> : null}
      </details>
    </li>
  );
}

/** A server's sampling transcript, newest first, as the catalog keeps it. */
export function SamplingLogDialog({ server, onClose }: Props) {
  const [state, setState] = useState<LogState>({ kind: "loading" });
  const refresh = useCallback(() => {
    samplingLog(server).then(
      (records) => setState({ kind: "ready", records }),
      (error) => setState({ kind: "failed", error: errorText(error) }),
    );
  }, [server]);
  useEffect(refresh, [refresh]);

  return (
    <LogDialogFrame
      eyebrow="Sampling transcript"
      server={server}
      className="server-log-dialog sampling-log-dialog"
      prefix="sampling-log"
      closeLabel="Close the transcript"
      onRefresh={refresh}
      onClose={onClose}
    >
        {state.kind === "failed" ? <p className="error small">{state.error}</p> : null}
        {state.kind === "loading" ? <p className="muted small">Loading…</p> : null}
        {state.kind === "ready" && state.records.length === 0 ? (
          <p className="muted small sampling-log-empty">{server} has not asked for a completion yet.</p>
        ) : null}
        {state.kind === "ready" && state.records.length > 0 ? (
          <ol className="sampling-log">
            {state.records.map((record, i) => (
              <Exchange key={record.id ?? i} record={record} />
            ))}
          </ol>
        ) : null}
        <p className="small muted server-log-note">
          The newest 200 exchanges. All of them, as MCP messages: <code>mcp-canvas-cli sampling export {server}</code>.
        </p>
    </LogDialogFrame>
  );
}
