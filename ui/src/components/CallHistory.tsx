import { useState } from "react";
import { prettyArguments, STATUS_WORDS, timeOfDay, type CallRecord } from "../callHistory";
import { useCallHistory } from "../callHistoryStore";

interface Props {
  /** Select the call's tool and run it again with the same arguments. */
  onRerun: (record: CallRecord) => void;
}

/** The calls made in this run, newest first: status, tool, time; open one for its arguments. */
export function CallHistory({ onRerun }: Props) {
  const history = useCallHistory();
  const [copied, setCopied] = useState<{ id: string; ok: boolean; message: string } | null>(null);

  async function copy(record: CallRecord) {
    try {
      await navigator.clipboard.writeText(prettyArguments(record.arguments));
      setCopied({ id: record.id, ok: true, message: "Copied" });
    } catch (error) {
      setCopied({ id: record.id, ok: false, message: `Could not copy: ${error instanceof Error ? error.message : String(error)}` });
    }
  }

  return (
    <section className="call-history" aria-label="Call history">
      <h3 className="sidebar-heading">
        History <span className="count">{history.length}</span>
      </h3>
      {history.length === 0 ? (
        <p className="muted small">Calls you make appear here.</p>
      ) : (
        <ol className="call-history-list">
          {history.map((record) => (
            <li key={record.id} className={`call-record ${record.status}`} data-tool={record.tool.name} data-status={record.status}>
              <details>
                <summary>
                  <span className={`status-dot ${record.status}`} aria-hidden="true" />
                  <span className="call-record-tool">{record.tool.title ?? record.tool.name}</span>
                  <time className="call-record-time" dateTime={new Date(record.at).toISOString()}>
                    {timeOfDay(record.at)}
                  </time>
                </summary>
                <p className="call-record-meta">
                  {record.server} · {record.tool.name} · <span className="call-record-status">{STATUS_WORDS[record.status]}</span>
                </p>
                {record.detail ? <p className="call-record-detail">{record.detail}</p> : null}
                <pre className="call-record-arguments">{prettyArguments(record.arguments)}</pre>
                <div className="call-record-actions">
                  <button type="button" className="server-action call-rerun" onClick={() => onRerun(record)}>
                    Re-run
                  </button>
                  <button type="button" className="server-action call-copy" onClick={() => copy(record)}>
                    Copy arguments
                  </button>
                  {copied?.id === record.id ? <span className={`small ${copied.ok ? "copied" : "error"}`}>{copied.message}</span> : null}
                </div>
              </details>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
