import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { SamplingSettings as Settings } from "../../wire/SamplingSettings";
import { newProvider, parseModels } from "./ProviderEditor";
import { SamplingSettings, trimPolicy } from "./SamplingSettings";

const empty: Settings = { policy: "ask", requests_per_minute: 20, max_request_bytes: 4194304, providers: [], servers: {} };
const view = vi.fn();
const set = vi.fn();
const setKey = vi.fn();
vi.mock("../../ipc", () => ({
  samplingSettingsView: () => view(),
  samplingSettingsSet: (s: Settings) => set(s),
  samplingSetKey: (p: string, k: string | null) => setKey(p, k),
  listServers: () => Promise.resolve([{ name: "demo" }, { name: "everything" }]),
  errorText: (e: unknown) => String(e),
}));

beforeEach(() => {
  view.mockReset();
  set.mockReset();
  setKey.mockReset();
});

describe("SamplingSettings", () => {
  it("adds a provider, sets a server's policy and saves the whole section", async () => {
    view.mockResolvedValue(empty);
    set.mockImplementation((s: Settings) => Promise.resolve(s));
    render(<SamplingSettings />);
    expect(await screen.findByText(/No provider yet/)).toBeTruthy();
    const save = screen.getByRole("button", { name: "Save sampling settings" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);

    await userEvent.click(screen.getByRole("button", { name: "Add provider" }));
    const models = document.querySelector<HTMLInputElement>(".provider-models")!;
    await userEvent.clear(models);
    await userEvent.type(models, "smollm2, qwen");
    await userEvent.selectOptions(screen.getByLabelText("Sampling policy for demo"), "always");
    await userEvent.type(screen.getByLabelText("Max tokens for demo"), "64");
    await userEvent.click(screen.getByLabelText("Offer tools to everything"));
    await userEvent.click(save);

    const sent: Settings = set.mock.calls[0][0];
    expect(sent.providers.map((p) => [p.name, p.kind, p.models])).toEqual([["openai", "openai", ["smollm2", "qwen"]]]);
    expect(sent.servers).toEqual({ demo: { policy: "always", max_tokens: 64, tools: true, review: false }, everything: { tools: false, review: false } });
    expect(await screen.findByText(/Saved: in effect/)).toBeTruthy();
    expect(save.disabled).toBe(true);
  });

  it("shows Rust's refusal and keeps the draft", async () => {
    view.mockResolvedValue(empty);
    set.mockRejectedValue("settings.toml: [sampling.servers.demo] provider = \"gone\" names no [[sampling.providers]] entry; nothing written");
    render(<SamplingSettings />);
    await userEvent.selectOptions(await screen.findByLabelText("Sampling policy for demo"), "never");
    await userEvent.click(screen.getByRole("button", { name: "Save sampling settings" }));
    expect(await screen.findByText(/nothing written/)).toBeTruthy();
    expect((screen.getByLabelText("Sampling policy for demo") as HTMLSelectElement).value).toBe("never");
  });

  it("stores a key in the keyring only for a saved provider, and never shows it again", async () => {
    const saved: Settings = { ...empty, providers: [{ ...newProvider("anthropic", []), api_key_keyring: true }] };
    view.mockResolvedValue(saved);
    setKey.mockResolvedValue(saved);
    render(<SamplingSettings />);
    const provider = await screen.findByRole("group", { name: "anthropic" });
    const key = within(provider).getByLabelText("API key for anthropic") as HTMLInputElement;
    expect(key.type).toBe("password");
    await userEvent.type(key, "sk-ant-secret");
    await userEvent.click(within(provider).getByRole("button", { name: "Store in keyring" }));
    expect(setKey).toHaveBeenCalledWith("anthropic", "sk-ant-secret");
    expect(await screen.findByText(/is in the OS keyring/)).toBeTruthy();
    expect(key.value).toBe("");

    await userEvent.click(screen.getByRole("button", { name: "Add provider" }));
    const added = screen.getByRole("group", { name: "openai" });
    await userEvent.selectOptions(within(added).getByRole("combobox", { name: "API key" }), "keyring");
    expect(within(added).getByText(/Save first/)).toBeTruthy();
  });
});

describe("helpers", () => {
  it("parses models and names new providers uniquely", () => {
    expect(parseModels(" a, b ,,c ")).toEqual(["a", "b", "c"]);
    expect(newProvider("openai", ["openai", "openai-2"]).name).toBe("openai-3");
    expect(newProvider("ollama", []).base_url).toBe("http://127.0.0.1:11434");
  });

  it("drops a server policy that says nothing", () => {
    expect(trimPolicy({ tools: true, review: false })).toBeNull();
    expect(trimPolicy({ tools: true, review: false, model: "" })).toBeNull();
    expect(trimPolicy({ tools: false, review: false, policy: "never" })).toEqual({ tools: false, review: false, policy: "never" });
  });
});
