import { act, render, screen, waitFor, within } from "@testing-library/react";
import { useState } from "react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Scope } from "../browser/team";
import { teamStatusOf } from "../test/team";
import type { ArtifactRecord } from "../wire/ArtifactRecord";
import type { SearchHit } from "../wire/SearchHit";
import type { SearchQuery } from "../wire/SearchQuery";
import type { SearchResults } from "../wire/SearchResults";
import type { TeamMember } from "../wire/TeamMember";
import type { TeamStatus } from "../wire/TeamStatus";
import { SearchPalette } from "./SearchPalette";

// The palette talks to the backend through ipc.ts (the one module that imports @tauri-apps).
const ipc = vi.hoisted(() => ({
  artifactsSearch: vi.fn<(query: SearchQuery) => Promise<SearchResults>>(),
  artifactsSources: vi.fn(() => Promise.resolve([{ server: "demo", tool: "report", count: 3 }, { server: "files", tool: "read", count: 1 }])),
  artifactOpen: vi.fn<(id: string) => Promise<void>>(),
  artifactOpenAt: vi.fn<(id: string, place: string, position: number) => Promise<void>>(),
  // With a local store (the default here) the status is null: no team search is offered.
  teamStatus: vi.fn<() => Promise<TeamStatus | null>>(),
  teamSearch: vi.fn<(query: SearchQuery) => Promise<SearchHit[]>>(),
  teamMembers: vi.fn<() => Promise<TeamMember[]>>(),
}));
vi.mock("../ipc", async (importOriginal) => {
  // The real error readers: they only read a CommandError.
  const { errorText, errorKind } = await importOriginal<typeof import("../ipc")>();
  return {
    ...ipc,
    errorText,
    errorKind,
    restartServer: vi.fn(),
    signIn: vi.fn(),
    artifactUrl: (id: string) => `artifact://localhost/${id}`,
    artifactViewUrl: (id: string, view: string) => `artifact://localhost/${id}/${view}`,
  };
});

// jsdom has no IntersectionObserver: every lazy thumbnail is in view at once.
vi.stubGlobal(
  "IntersectionObserver",
  class {
    constructor(private readonly callback: (entries: Array<{ isIntersecting: boolean; target: Element }>) => void) {}
    observe(target: Element) {
      this.callback([{ isIntersecting: true, target }]);
    }
    unobserve() {}
    disconnect() {}
  },
);

const record = (id: string, name: string, mime: string): ArtifactRecord => ({
  id,
  sha256: "00",
  name,
  mime,
  size: 1000,
  server: "demo",
  tool: "report",
  call_id: "call-1",
  session_id: "s",
  created_at_ms: Date.now() - 5 * 60_000,
  last_used_at_ms: 0,
  persistence: "session",
  description: null,
});

const REPORT = record("demo_report", "q3-report.pdf", "application/pdf");
const CUSTOMERS = record("demo_customers", "customers.csv", "text/csv");
const CHART = record("demo_chart", "acme-chart.png", "image/png");

const hit = (artifact: ArtifactRecord, place: SearchHit["place"], position: number, ...snippet: Array<string | [string]>): SearchHit => ({
  artifact,
  place,
  position,
  // A word in brackets is a hit.
  snippet: snippet.map((part) => (typeof part === "string" ? { text: part, hit: false } : { text: part[0], hit: true })),
  member: null,
});

/** A hit of the team's search: who stored it. */
const teamHit = (member: string, artifact: ArtifactRecord, place: SearchHit["place"], position: number, ...snippet: Array<string | [string]>): SearchHit => ({
  ...hit(artifact, place, position, ...snippet),
  member,
});

const results = (hits: SearchHit[], pending = 0, partial = false): SearchResults => ({ hits, indexed: 10, pending, partial });

/** The palette with its scope kept as the window keeps it (`scope`: the choice remembered). */
function renderPalette(scope: Scope = "local") {
  const onClose = vi.fn();
  const onScopeChange = vi.fn();
  const user = userEvent.setup();
  function Window() {
    const [chosen, setChosen] = useState<Scope>(scope);
    return (
      <SearchPalette
        onClose={onClose}
        scope={chosen}
        onScopeChange={(next) => {
          onScopeChange(next);
          setChosen(next);
        }}
      />
    );
  }
  render(<Window />);
  const input = screen.getByRole("combobox", { name: "Search the text of stored files" });
  return { user, onClose, input, onScopeChange };
}

const lastQuery = () => ipc.artifactsSearch.mock.calls.at(-1)?.[0];
const lastTeamQuery = () => ipc.teamSearch.mock.calls.at(-1)?.[0];

/** Every mock afresh: nothing found, files open; the store's team `status` and its `members`. */
function resetIpc(status: TeamStatus | null, members: TeamMember[]) {
  ipc.artifactsSearch.mockReset().mockResolvedValue(results([]));
  ipc.artifactOpen.mockReset().mockResolvedValue();
  ipc.artifactOpenAt.mockReset().mockResolvedValue();
  ipc.teamStatus.mockReset().mockResolvedValue(status);
  ipc.teamSearch.mockReset().mockResolvedValue([]);
  ipc.teamMembers.mockReset().mockResolvedValue(members);
}

describe("SearchPalette", () => {
  beforeEach(() => resetIpc(null, []));

  it("is a dialog with the field focused, and shows what the syntax does before anything is typed", () => {
    const { input } = renderPalette();
    expect(screen.getByRole("dialog", { name: "Search artifacts" })).toBeTruthy();
    expect(document.activeElement).toBe(input);
    const hint = document.querySelector(".search-hint")!;
    expect(hint.textContent).toContain('"net revenue"');
    expect(hint.textContent).toContain("reven*");
    expect(ipc.artifactsSearch).not.toHaveBeenCalled();
  });

  it("asks once per pause in typing, with the text exactly as typed and the filters", async () => {
    const { user, input } = renderPalette();
    await user.type(input, '"net rev');
    await waitFor(() => expect(ipc.artifactsSearch).toHaveBeenCalledTimes(1));
    expect(lastQuery()).toMatchObject({ text: '"net rev', server: null, tool: null, family: null, since_ms: null });

    await user.selectOptions(screen.getByRole("combobox", { name: "Type" }), "pdf");
    await waitFor(() => expect(lastQuery()?.family).toBe("pdf"));
    await waitFor(() => expect(screen.getByRole("option", { name: "demo" })).toBeTruthy());
    await user.selectOptions(screen.getByRole("combobox", { name: "Server" }), "demo");
    await user.selectOptions(screen.getByRole("combobox", { name: "Tool" }), "report");
    await user.selectOptions(screen.getByRole("combobox", { name: "Date" }), "week");
    await waitFor(() => expect(lastQuery()).toMatchObject({ text: '"net rev', family: "pdf", server: "demo", tool: "report" }));
    const since = lastQuery()!.since_ms!;
    expect(Math.abs(Date.now() - 7 * 86_400_000 - since)).toBeLessThan(60_000);
    // A trailing space is sent too: it ends the word being typed (no longer a prefix).
    await user.type(input, " ");
    await waitFor(() => expect(lastQuery()?.text).toBe('"net rev '));
  });

  it("shows only the newest request's answer when an older one arrives after it", async () => {
    const answers: Array<(r: SearchResults) => void> = [];
    ipc.artifactsSearch.mockImplementation(() => new Promise((resolve) => answers.push(resolve)));
    const { user, input } = renderPalette();
    await user.type(input, "acm");
    await waitFor(() => expect(answers).toHaveLength(1));
    await user.type(input, "e");
    await waitFor(() => expect(answers).toHaveLength(2));

    await act(async () => answers[1](results([hit(CUSTOMERS, "row", 4, "ACME, ", ["acme"], " Corp")])));
    expect(screen.getByRole("group", { name: "customers.csv" })).toBeTruthy();
    await act(async () => answers[0](results([hit(REPORT, "page", 2, ["acm"], "e")])));
    expect(screen.getByRole("group", { name: "customers.csv" })).toBeTruthy();
    expect(screen.queryByRole("group", { name: "q3-report.pdf" })).toBeNull();
  });

  it("groups hits under their file, with where each is, and marks the matching words as text, never markup", async () => {
    ipc.artifactsSearch.mockResolvedValue(
      results(
        [
          hit(REPORT, "page", 12, "net ", ["revenue"], " grew"),
          hit(CUSTOMERS, "row", 340, '<img src=x onerror=alert(1)> ', ["revenue"]),
          hit(REPORT, "page", 3, ["revenue"], " by region"),
          hit(CHART, "name", 0, ["revenue"], "-chart.png"),
        ],
        2,
      ),
    );
    const { user, input } = renderPalette();
    await user.type(input, "revenue");
    const report = await screen.findByRole("group", { name: "q3-report.pdf" });
    expect(within(report).getAllByRole("option").map((o) => o.querySelector(".search-place")?.textContent)).toEqual(["page 12", "page 3"]);
    expect(report.textContent).toContain("demo · report · 5 min ago");
    // Marks are the hit parts, with their text.
    const marks = [...document.querySelectorAll(".search-snippet mark")].map((m) => m.textContent);
    expect(marks).toEqual(["revenue", "revenue", "revenue", "revenue"]);
    // Markup in a snippet is text: no element is made from it.
    const customers = screen.getByRole("group", { name: "customers.csv" });
    expect(within(customers).getByRole("option").textContent).toContain("<img src=x onerror=alert(1)> revenue");
    expect(customers.querySelector("img")).toBeNull();
    expect(within(customers).getByRole("option").querySelector(".search-place")?.textContent).toBe("row 340");
    // The chart's thumbnail is a picture; the PDF's and the table's, their kind.
    const chart = screen.getByRole("group", { name: "acme-chart.png" });
    expect(chart.querySelector("img")?.getAttribute("src")).toBe("artifact://localhost/demo_chart/thumbnail?width=320");
    expect(report.querySelector("img")).toBeNull();
    expect(report.querySelector(".thumb-label")?.textContent).toBe("PDF");
    // Files whose text is not indexed yet, quietly.
    expect(screen.getByText("2 files still being indexed")).toBeTruthy();
  });

  it("says when a phrase was checked only in the newest files", async () => {
    ipc.artifactsSearch.mockResolvedValue(results([hit(REPORT, "page", 3, ["net revenue"])], 0, true));
    const { user, input } = renderPalette();
    await user.type(input, '"net revenue"');
    expect(await screen.findByText(/Only the newest files were checked for this phrase/)).toBeTruthy();
  });

  it("opens the selected hit at its page with Enter after ArrowDown, and closes", async () => {
    ipc.artifactsSearch.mockResolvedValue(results([hit(REPORT, "page", 3, ["revenue"]), hit(REPORT, "page", 12, ["revenue"]), hit(CUSTOMERS, "row", 9, ["revenue"])]));
    const { user, input, onClose } = renderPalette();
    await user.type(input, "revenue");
    await screen.findByRole("group", { name: "q3-report.pdf" });
    const selected = () => screen.getAllByRole("option").find((o) => o.getAttribute("aria-selected") === "true")?.textContent;
    expect(selected()).toContain("page 3");
    await user.keyboard("{ArrowDown}{ArrowDown}{ArrowUp}");
    expect(selected()).toContain("page 12");
    expect(input.getAttribute("aria-activedescendant")).toBe("search-hit-1");
    await user.keyboard("{Enter}");
    expect(ipc.artifactOpenAt).toHaveBeenCalledExactlyOnceWith("demo_report", "page", 12);
    expect(ipc.artifactOpen).not.toHaveBeenCalled();
    await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
  });

  it("opens a name hit as the file (artifact_open) when clicked", async () => {
    ipc.artifactsSearch.mockResolvedValue(results([hit(CHART, "name", 0, ["acme"], "-chart.png")]));
    const { user, input, onClose } = renderPalette();
    await user.type(input, "acme");
    await user.click(await screen.findByRole("option", { name: /name/ }));
    expect(ipc.artifactOpen).toHaveBeenCalledExactlyOnceWith("demo_chart");
    expect(ipc.artifactOpenAt).not.toHaveBeenCalled();
    await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
  });

  it("closes on Escape, and on a click beside it but not inside it", async () => {
    const { user, onClose, input } = renderPalette();
    await user.click(input);
    await user.click(screen.getByRole("dialog", { name: "Search artifacts" }));
    expect(onClose).not.toHaveBeenCalled();
    await user.keyboard("{Escape}");
    expect(onClose).toHaveBeenCalledTimes(1);
    await user.click(document.querySelector(".search-backdrop")!);
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it("shows a failed search with the error view, and recovers on the next answer", async () => {
    ipc.artifactsSearch.mockRejectedValueOnce({ kind: "storage", message: "The search index is damaged: run `mcp-canvas-cli artifacts reindex`." });
    const { user, input } = renderPalette();
    await user.type(input, "acme");
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Storage");
    expect(alert.textContent).toContain("The search index is damaged");
    expect(screen.getByRole("dialog", { name: "Search artifacts" })).toBeTruthy();

    ipc.artifactsSearch.mockResolvedValue(results([hit(CUSTOMERS, "row", 4, ["acme"])]));
    await user.type(input, " corp");
    await screen.findByRole("group", { name: "customers.csv" });
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("keeps the palette open and says why when a hit cannot be opened", async () => {
    ipc.artifactsSearch.mockResolvedValue(results([hit(CUSTOMERS, "row", 4, ["acme"])]));
    ipc.artifactOpenAt.mockRejectedValue({ kind: "not_found", message: "No artifact demo_customers: it was deleted." });
    const { user, input, onClose } = renderPalette();
    await user.type(input, "acme");
    await screen.findByRole("group", { name: "customers.csv" });
    await user.keyboard("{Enter}");
    expect((await screen.findByRole("alert")).textContent).toContain("it was deleted");
    expect(onClose).not.toHaveBeenCalled();
  });

  it("says when nothing matched", async () => {
    const { user, input } = renderPalette();
    await user.type(input, "zzz");
    expect(await screen.findByText(/Nothing found/)).toBeTruthy();
  });
});

describe("SearchPalette, with a team store", () => {
  const STATUS = teamStatusOf();
  const BO_REPORT = { ...record("team_report", "bo-forecast.pdf", "application/pdf"), server: "finance", tool: "forecast" };
  const MY_CHART = record("team_chart", "acme-chart.png", "image/png");

  const scopeSwitch = () => screen.getByRole("group", { name: "Whose files" });
  const scopeButton = (name: "This machine" | "Team") => within(scopeSwitch()).getByRole("button", { name });

  beforeEach(() =>
    resetIpc(STATUS, [
      { member: "ada", count: 3 },
      { member: "bo", count: 5 },
    ]),
  );

  it("offers no scope switch with a local store (team_status null)", async () => {
    ipc.teamStatus.mockResolvedValue(null);
    const local = renderPalette();
    await waitFor(() => expect(ipc.teamStatus).toHaveBeenCalled());
    await act(async () => undefined);
    expect(screen.queryByRole("group", { name: "Whose files" })).toBeNull();
    expect(screen.queryByRole("combobox", { name: "Member" })).toBeNull();
    // A local store searches locally (its member filter sent as null).
    await local.user.type(local.input, "acme");
    await waitFor(() => expect(lastQuery()).toMatchObject({ text: "acme", member: null }));
    expect(ipc.teamSearch).not.toHaveBeenCalled();
    expect(ipc.teamMembers).not.toHaveBeenCalled();
  });

  it("offers This machine | Team with a team store, This machine first", async () => {
    renderPalette();
    expect(await screen.findByRole("group", { name: "Whose files" })).toBeTruthy();
    expect(scopeButton("This machine").getAttribute("aria-pressed")).toBe("true");
    expect(scopeButton("Team").getAttribute("aria-pressed")).toBe("false");
    // The local scope has no member filter, and asks nobody for the members.
    expect(screen.queryByRole("combobox", { name: "Member" })).toBeNull();
    expect(ipc.teamMembers).not.toHaveBeenCalled();
  });

  it("in Team scope asks team_search (not the local index), with the member filter and the others", async () => {
    const { user, input, onScopeChange } = renderPalette();
    await user.click(await screen.findByRole("button", { name: "Team" }));
    expect(onScopeChange).toHaveBeenCalledExactlyOnceWith("team");
    expect(scopeButton("Team").getAttribute("aria-pressed")).toBe("true");
    await user.type(input, "forecast");
    await waitFor(() => expect(ipc.teamSearch).toHaveBeenCalledTimes(1));
    expect(lastTeamQuery()).toMatchObject({ text: "forecast", member: null, server: null, family: null });
    expect(ipc.artifactsSearch).not.toHaveBeenCalled();

    // The members, mine with (you), as the team's file list shows them.
    const member = await screen.findByRole("combobox", { name: "Member" });
    await waitFor(() => expect(within(member).getAllByRole("option").map((o) => o.textContent)).toEqual(["Everyone", "ada (you) (3)", "bo (5)"]));
    await user.selectOptions(member, "bo");
    await waitFor(() => expect(lastTeamQuery()?.member).toBe("bo"));
    await user.selectOptions(screen.getByRole("combobox", { name: "Type" }), "pdf");
    await waitFor(() => expect(lastTeamQuery()).toMatchObject({ text: "forecast", member: "bo", family: "pdf" }));
    expect(ipc.artifactsSearch).not.toHaveBeenCalled();
  });

  it("is switched with the keyboard too", async () => {
    const { user, input } = renderPalette();
    await screen.findByRole("group", { name: "Whose files" });
    await user.type(input, "acme");
    await waitFor(() => expect(ipc.artifactsSearch).toHaveBeenCalledTimes(1));
    // Tab from the field reaches the switch; Space on Team, then Enter on This machine.
    await user.tab();
    expect(document.activeElement).toBe(scopeButton("This machine"));
    await user.tab();
    expect(document.activeElement).toBe(scopeButton("Team"));
    await user.keyboard(" ");
    await waitFor(() => expect(lastTeamQuery()?.text).toBe("acme"));
    expect(scopeButton("Team").getAttribute("aria-pressed")).toBe("true");
    await user.tab({ shift: true });
    await user.keyboard("{Enter}");
    expect(scopeButton("This machine").getAttribute("aria-pressed")).toBe("true");
    await waitFor(() => expect(ipc.artifactsSearch).toHaveBeenCalledTimes(2));
    expect(ipc.teamSearch).toHaveBeenCalledTimes(1);
  });

  it("shows who stored each hit, (you) for mine, team files as type icons, and no count of files being indexed", async () => {
    ipc.teamSearch.mockResolvedValue([
      teamHit("bo", BO_REPORT, "page", 7, "the ", ["acme"], " forecast"),
      teamHit("ada", MY_CHART, "name", 0, ["acme"], "-chart.png"),
      teamHit("bo", BO_REPORT, "page", 2, ["acme"]),
    ]);
    const { user, input } = renderPalette("team");
    await user.type(input, "acme");
    const report = await screen.findByRole("group", { name: "bo-forecast.pdf" });
    expect(report.querySelector(".search-file-meta")?.textContent).toBe("bo · finance · forecast · 5 min ago");
    expect(within(report).getAllByRole("option").map((o) => o.querySelector(".search-place")?.textContent)).toEqual(["page 7", "page 2"]);
    const chart = screen.getByRole("group", { name: "acme-chart.png" });
    expect(chart.querySelector(".search-file-meta")?.textContent).toBe("ada (you) · demo · report · 5 min ago");
    // The file may not be on this machine: its kind, not a picture from the local store.
    expect(chart.querySelector("img")).toBeNull();
    expect(chart.querySelector(".thumb-label")?.textContent).toBe("PNG");
    expect(screen.queryByText(/still being indexed/)).toBeNull();
  });

  it("shows a failed team search in the palette, and This machine searches locally again", async () => {
    ipc.teamSearch.mockRejectedValue({ kind: "storage", message: "team catalog postgres://canvas@db/canvas: connection refused" });
    ipc.artifactsSearch.mockResolvedValue(results([hit(CUSTOMERS, "row", 4, ["acme"])], 3));
    const { user, input } = renderPalette("team");
    await user.type(input, "acme");
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Storage");
    expect(alert.textContent).toContain("team catalog postgres://canvas@db/canvas: connection refused");
    expect(screen.getByRole("dialog", { name: "Search artifacts" })).toBeTruthy();
    expect(ipc.artifactsSearch).not.toHaveBeenCalled();

    await user.click(scopeButton("This machine"));
    await screen.findByRole("group", { name: "customers.csv" });
    expect(lastQuery()).toMatchObject({ text: "acme", member: null });
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.getByText("3 files still being indexed")).toBeTruthy();
    expect(ipc.teamSearch).toHaveBeenCalledTimes(1);
  });

  it("never shows one scope's late answer under the other", async () => {
    const local: Array<(r: SearchResults) => void> = [];
    ipc.artifactsSearch.mockImplementation(() => new Promise((resolve) => local.push(resolve)));
    ipc.teamSearch.mockResolvedValue([teamHit("bo", BO_REPORT, "page", 7, ["acme"])]);
    const { user, input } = renderPalette();
    await user.type(input, "acme");
    await waitFor(() => expect(local).toHaveLength(1));
    await user.click(scopeButton("Team"));
    await act(async () => local[0](results([hit(CUSTOMERS, "row", 4, ["acme"])])));
    expect(screen.queryByRole("group", { name: "customers.csv" })).toBeNull();
    expect(await screen.findByRole("group", { name: "bo-forecast.pdf" })).toBeTruthy();
    expect(screen.queryByRole("group", { name: "customers.csv" })).toBeNull();
  });

  it("opens a teammate's hit at its page (artifact_open_at fetches it first), saying so meanwhile", async () => {
    let opened: () => void = () => undefined;
    ipc.artifactOpenAt.mockImplementation(() => new Promise<void>((resolve) => (opened = resolve)));
    ipc.teamSearch.mockResolvedValue([teamHit("bo", BO_REPORT, "page", 7, ["acme"]), teamHit("bo", BO_REPORT, "page", 12, ["acme"])]);
    const { user, input, onClose } = renderPalette("team");
    await user.type(input, "acme");
    await screen.findByRole("group", { name: "bo-forecast.pdf" });
    await user.keyboard("{ArrowDown}{Enter}");
    expect(ipc.artifactOpenAt).toHaveBeenCalledExactlyOnceWith("team_report", "page", 12);
    expect(ipc.artifactOpen).not.toHaveBeenCalled();
    expect(screen.getByText("Fetching bo-forecast.pdf from the team…")).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
    await act(async () => opened());
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it("searches the team at once when Team was chosen before, while the status is still being asked for", async () => {
    ipc.teamStatus.mockImplementation(() => new Promise(() => undefined));
    const { user, input } = renderPalette("team");
    expect(scopeButton("Team").getAttribute("aria-pressed")).toBe("true");
    await user.type(input, "acme");
    await waitFor(() => expect(lastTeamQuery()?.text).toBe("acme"));
    expect(ipc.artifactsSearch).not.toHaveBeenCalled();
  });

  it("searches locally when Team was chosen but the store turned out local", async () => {
    ipc.teamStatus.mockResolvedValue(null);
    const { user, input } = renderPalette("team");
    await waitFor(() => expect(screen.queryByRole("group", { name: "Whose files" })).toBeNull());
    await user.type(input, "acme");
    await waitFor(() => expect(lastQuery()?.text).toBe("acme"));
    expect(ipc.teamSearch).not.toHaveBeenCalled();
  });
});
