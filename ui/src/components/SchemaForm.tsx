import Form from "@rjsf/core";
import type { RJSFSchema, UiSchema } from "@rjsf/utils";
import { Component, useState, type ReactNode, type Ref } from "react";
import { DEFAULTS_BEHAVIOR } from "../forms/formConfig";
import { schemaValidator } from "../forms/schemaValidator";
import { FileField } from "./FileField";
import { FILE_FIELD } from "./fileFieldsContext";

/** Custom fields a uiSchema may name: a tool's file arguments (`withFileFields`). */
const FIELDS = { [FILE_FIELD]: FileField };

export type SchemaFormHandle = Form<unknown, RJSFSchema>;

interface Props {
  schema: RJSFSchema;
  uiSchema: UiSchema;
  formData: unknown;
  onChange: (data: unknown) => void;
  /** Prefix of the fields' ids (`<prefix>_<field>`), unique in the window. */
  idPrefix: string;
  formRef: Ref<SchemaFormHandle>;
  disabled?: boolean;
  /** Shown instead of the form when it cannot be drawn from this schema. */
  fallback: (reason: string) => ReactNode;
  /** Enter in a field: called once the data is valid. */
  onSubmit?: () => void;
}

/**
 * A form drawn by @rjsf/core (its default theme, styled by styles.css) from a JSON Schema, with
 * the schema's defaults and descriptions, validated by `schemaValidator` (no eval; see there).
 * The caller has the buttons: it calls `validateForm()` on the handle before using the data.
 */
export function SchemaForm({ schema, uiSchema, formData, onChange, idPrefix, formRef, disabled, fallback, onSubmit }: Props) {
  // Once the user was shown problems, they follow each edit (and go away when fixed).
  const [live, setLive] = useState(false);
  return (
    <FormBoundary fallback={fallback}>
      <Form<unknown, RJSFSchema>
        ref={formRef}
        className={`schema-form ${idPrefix}-form`}
        schema={schema}
        uiSchema={uiSchema}
        formData={formData}
        validator={schemaValidator}
        fields={FIELDS}
        idPrefix={idPrefix}
        disabled={disabled}
        noHtml5Validate
        focusOnFirstError
        liveValidate={live ? "onChange" : undefined}
        onError={() => setLive(true)}
        experimental_defaultFormStateBehavior={DEFAULTS_BEHAVIOR}
        onChange={(event) => onChange(event.formData)}
        // Enter in a field submits: rjsf validates, then the caller acts as on its own button.
        onSubmit={() => onSubmit?.()}
      />
    </FormBoundary>
  );
}

/** A schema @rjsf cannot draw must not take the window down: show why, and the caller's fallback. */
class FormBoundary extends Component<{ fallback: (reason: string) => ReactNode; children: ReactNode }, { error: string | null }> {
  state = { error: null as string | null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error.message : String(error) };
  }

  render() {
    return this.state.error !== null ? this.props.fallback(this.state.error) : this.props.children;
  }
}
