import { useMemo, useRef, useState } from "react";
import type { RJSFSchema } from "@rjsf/utils";
import { hasNoFields, initialArguments, toolFormSchema, uiSchemaFor } from "../forms/formConfig";
import { errorText } from "../ipc";
import type { CallOutcome } from "../wire/CallOutcome";
import { LazySchemaForm as SchemaForm } from "../components/LazySchemaForm";
import type { SchemaFormHandle } from "../components/SchemaForm";
import type { ViewTool } from "./viewTools";

type Answer = { kind: "ok" | "tool_error"; text: string; files: number } | { kind: "failed"; text: string };

/**
 * The tools an App's view exposes (ext-apps: the View's own `tools/list`), offered under the App:
 * pick one, fill its arguments (a form from its input schema), run it in the view. The view's
 * answer is stored like a tool result (Rust: `app_view_tool`), its files open beside the App, and
 * its summary is shown here. Folded until asked for: most of the time the view is the point.
 */
export function ViewTools({ tools, problem, run }: { tools: ViewTool[]; problem: string | null; run: (name: string, args: Record<string, unknown>) => Promise<CallOutcome> }) {
  const [open, setOpen] = useState(false);
  const [chosen, setChosen] = useState<string | null>(null);
  const tool = tools.find((t) => t.name === chosen) ?? tools[0];
  const schema = useMemo<RJSFSchema | null>(() => (tool ? toolFormSchema(tool.inputSchema) : null), [tool]);
  const uiSchema = useMemo(() => (schema ? uiSchemaFor(schema, { hostNotes: false }) : {}), [schema]);
  // The arguments belong to the tool they were filled for: another tool (chosen, or shown because
  // the view's list changed) starts from its own schema's defaults.
  const [edited, setEdited] = useState<{ tool: string; args: Record<string, unknown> } | null>(null);
  const defaults = useMemo(() => (schema ? initialArguments(schema) : {}), [schema]);
  const args = edited && tool && edited.tool === tool.name ? edited.args : defaults;
  const setArgs = (next: Record<string, unknown>) => tool && setEdited({ tool: tool.name, args: next });
  const [running, setRunning] = useState(false);
  const [answer, setAnswer] = useState<Answer | null>(null);
  const formRef = useRef<SchemaFormHandle>(null);
  if (!tools.length && problem === null) return null;

  const choose = (name: string) => {
    setChosen(name);
    setAnswer(null);
  };
  const submit = async () => {
    if (!tool || running) return;
    // A form still loading has not checked anything yet: nothing goes to the view unchecked.
    const fields = schema !== null && !hasNoFields(schema);
    if (fields && (!formRef.current || !formRef.current.validateForm())) return;
    setRunning(true);
    setAnswer(null);
    try {
      const outcome = await run(tool.name, args);
      setAnswer({ kind: outcome.error ? "tool_error" : "ok", text: outcome.summary, files: outcome.artifacts.length });
    } catch (error) {
      setAnswer({ kind: "failed", text: errorText(error) });
    } finally {
      setRunning(false);
    }
  };

  return (
    <div className={`view-tools${open ? " open" : ""}`}>
      <button type="button" className="view-tools-toggle secondary small" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? "▾" : "▸"} View tools ({tools.length})
      </button>
      {open ? (
        <section className="view-tools-body" aria-label="Tools this view offers">
          {problem !== null ? <p className="small error view-tools-problem">{problem}</p> : null}
          {tool ? (
            <>
              <label className="small">
                Tool{" "}
                <select className="view-tool-select" value={tool.name} onChange={(e) => choose(e.target.value)} disabled={running}>
                  {tools.map((t) => (
                    <option key={t.name} value={t.name}>
                      {t.title ?? t.name}
                    </option>
                  ))}
                </select>
              </label>
              {tool.description ? <p className="small muted view-tool-description">{tool.description}</p> : null}
              {schema && !hasNoFields(schema) ? (
                <SchemaForm
                  key={tool.name}
                  schema={schema}
                  uiSchema={uiSchema}
                  formData={args}
                  onChange={(data) => setArgs((data ?? {}) as Record<string, unknown>)}
                  idPrefix="viewtool"
                  formRef={formRef}
                  disabled={running}
                  onSubmit={() => void submit()}
                  fallback={(reason) => <p className="small error">No form can be drawn from this tool's input schema ({reason}).</p>}
                />
              ) : (
                <p className="small muted">This tool takes no arguments.</p>
              )}
              <button type="button" className="view-tool-run" onClick={() => void submit()} disabled={running}>
                {running ? "Running in the view…" : "Run in the view"}
              </button>
              {answer ? (
                <pre className="view-tool-answer small" data-state={answer.kind}>
                  {answer.kind === "failed" ? `Failed: ${answer.text}` : answer.text}
                  {answer.kind !== "failed" && answer.files > 0 ? `\n(${answer.files} file${answer.files === 1 ? "" : "s"} opened beside the App)` : ""}
                </pre>
              ) : null}
            </>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}
