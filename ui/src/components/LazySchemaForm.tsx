import { lazy, Suspense, type ComponentProps } from "react";
import type { SchemaForm as SchemaFormComponent } from "./SchemaForm";

// @rjsf/core is most of the form code: loaded when the first form is shown, not at start.
const SchemaForm = lazy(() => import("./SchemaForm").then((module) => ({ default: module.SchemaForm })));

/** `SchemaForm`, loaded on first use ("Loading the form…" meanwhile). */
export function LazySchemaForm(props: ComponentProps<typeof SchemaFormComponent>) {
  return (
    <Suspense fallback={<p className="small muted form-loading">Loading the form…</p>}>
      <SchemaForm {...props} />
    </Suspense>
  );
}
