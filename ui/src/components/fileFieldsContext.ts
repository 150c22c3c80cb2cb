// What the tool panel shares with its file fields (FileField.tsx, drawn inside the lazily loaded
// form): kept apart so the panel does not load the field's code before the form.
import { createContext } from "react";
import type { RecordState } from "../forms/fileArguments";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { FileArgument } from "../wire/FileArgument";

/** The @rjsf field name file arguments are drawn with (`ui:field`; SchemaForm registers it). */
export const FILE_FIELD = "mcpCanvasFile";

export interface FileFields {
  /** The tool's file arguments. */
  args: FileArgument[];
  /** What is known of each stored file a field names, by artifact id. */
  records: Record<string, RecordState>;
  /** Files a field just got (picked, imported, dropped): known at once, no lookup. */
  remember: (records: ArtifactRecord[]) => void;
}

export const FileFieldsContext = createContext<FileFields>({ args: [], records: {}, remember: () => {} });
