import { describe, expect, it } from "vitest";
import { confirmHeadline, prettyArguments } from "./confirmText";
import type { ConfirmPrompt } from "../wire/ConfirmPrompt";

const prompt = (on_behalf_of: string, args: Record<string, unknown> = {}): ConfirmPrompt => ({ id: "c1", server: "demo", tool: "purge_cache", arguments: args, on_behalf_of });

describe("confirmHeadline", () => {
  it("names who asks, the tool and the server", () => {
    expect(confirmHeadline(prompt("the MCP Canvas proxy"))).toBe("The MCP Canvas proxy wants to run purge_cache of demo");
  });
  it("says someone asks when nobody is named", () => {
    expect(confirmHeadline(prompt("  "))).toBe("Another program wants to run purge_cache of demo");
  });
});

describe("prettyArguments", () => {
  it("shows the exact arguments as indented JSON", () => {
    expect(prettyArguments({ older_than_days: 7, dry_run: false })).toBe('{\n  "older_than_days": 7,\n  "dry_run": false\n}');
  });
  it("says when there are none", () => {
    expect(prettyArguments({})).toBe("(no arguments)");
  });
});

describe("an App's download", () => {
  it("is said as files to save, with their names", () => {
    const prompt = { id: "q", server: "pdf", tool: "ui/download-file", on_behalf_of: "an App of `pdf`", arguments: { files: [{ name: "bashrc", bytes: 10 }] } } as never;
    expect(confirmHeadline(prompt)).toBe("An App of `pdf` wants to save a file in MCP Canvas: bashrc");
  });
});
