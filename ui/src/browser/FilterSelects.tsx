import type { Dispatch, SetStateAction } from "react";
import type { ArtifactSource } from "../wire/ArtifactSource";
import type { MimeFamily } from "../wire/MimeFamily";
import { FAMILIES, serverOptions, toolOptions, withServer, type Option } from "./filters";

/** One choice of a filter: its value and what the option says. */
export interface Choice<V extends string = string> {
  value: V;
  text: string;
}

interface FilterSelectProps<V extends string> {
  /** The select's accessible name ("Type", "Server", "Member"…). */
  label: string;
  value: V | null;
  /** The first option, meaning no filter (`null`): "All types", "Everyone"…; none when absent. */
  all?: string;
  choices: Choice<V>[];
  onChange: (value: V | null) => void;
}

/** A filter's `<select>` (the file browser's, the team's and the search palette's). */
export function FilterSelect<V extends string>({ label, value, all, choices, onChange }: FilterSelectProps<V>) {
  return (
    <select aria-label={label} value={value ?? ""} onChange={(e) => onChange((e.target.value || null) as V | null)}>
      {all !== undefined ? <option value="">{all}</option> : null}
      {choices.map((c) => (
        <option key={c.value} value={c.value}>
          {c.text}
        </option>
      ))}
    </select>
  );
}

/** What the Type, Server and Tool filters narrow (the browser's filters and the palette's). */
interface SourceFilters {
  family: MimeFamily | null;
  server: string | null;
  tool: string | null;
}

interface SourceFilterProps<F extends SourceFilters> {
  filters: F;
  setFilters: Dispatch<SetStateAction<F>>;
}

const FAMILY_CHOICES: Choice<MimeFamily>[] = FAMILIES.map((t) => ({ value: t.value, text: t.label }));

/** The Type filter: "All types" or one family of files. */
export function TypeFilter<F extends SourceFilters>({ filters, setFilters }: SourceFilterProps<F>) {
  return <FilterSelect label="Type" value={filters.family} all="All types" choices={FAMILY_CHOICES} onChange={(family) => setFilters((f) => ({ ...f, family }))} />;
}

/** The Server and Tool filters, from the servers and tools that stored files (`counts`: how many
 * each, after its name); choosing a server keeps the tool only if that server has it. */
export function ServerToolFilters<F extends SourceFilters>({ filters, setFilters, sources, counts = false }: SourceFilterProps<F> & { sources: ArtifactSource[]; counts?: boolean }) {
  const choices = (options: Option[]): Choice[] => options.map((o) => ({ value: o.value, text: counts ? `${o.value} (${o.count})` : o.value }));
  return (
    <>
      <FilterSelect label="Server" value={filters.server} all="All servers" choices={choices(serverOptions(sources))} onChange={(server) => setFilters((f) => withServer(f, server, sources))} />
      <FilterSelect label="Tool" value={filters.tool} all="All tools" choices={choices(toolOptions(sources, filters.server))} onChange={(tool) => setFilters((f) => ({ ...f, tool }))} />
    </>
  );
}
