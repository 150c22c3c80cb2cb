import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { ErrorKind } from "../wire/ErrorKind";
import { CommandErrorView, KIND_LABEL } from "./CommandErrorView";

describe("CommandErrorView", () => {
  it("offers what the kind calls for", () => {
    const { rerender, container } = render(<CommandErrorView error={{ kind: "sign_in", message: "server `s` asks you to sign in (OAuth)" }} server="s" />);
    expect(screen.getByRole("button").textContent).toBe("Sign in");
    expect(container.querySelector("[data-kind=sign_in]")).not.toBeNull();
    rerender(<CommandErrorView error={{ kind: "server_down", message: "cannot start" }} server="s" />);
    expect(screen.getByRole("button").textContent).toBe("Restart the server");
    rerender(<CommandErrorView error={{ kind: "bad_arguments", message: "not JSON" }} onFixArguments={() => {}} />);
    expect(screen.getByRole("button").textContent).toBe("Fix the arguments");
    rerender(<CommandErrorView error={{ kind: "timeout", message: "did not answer within 60 s" }} server="s" />);
    expect(screen.queryByRole("button")).toBeNull();
    expect(screen.getByRole("alert").textContent).toContain("did not answer within 60 s");
  });

  it("treats what is not a CommandError as a bug, with its text", () => {
    render(<CommandErrorView error={new Error("boom")} />);
    expect(screen.getByRole("alert").textContent).toContain("boom");
    expect(screen.getByRole("button").textContent).toBe("Copy a bug report");
  });

  it("offers no sign-in or restart without a server to act on", () => {
    render(<CommandErrorView error={{ kind: "server_down", message: "x" }} />);
    expect(screen.queryByRole("button")).toBeNull();
  });

  it("says its kind in words at the head of the card", () => {
    const words: Partial<Record<ErrorKind, string>> = {
      server_down: "Server stopped",
      bad_arguments: "Bad arguments",
      sign_in: "Needs sign-in",
      storage: "Storage",
      bug: "Bug",
      timeout: "Timed out",
    };
    const { rerender } = render(<CommandErrorView error={{ kind: "server_down", message: "server `s` exited" }} />);
    for (const kind of Object.keys(KIND_LABEL) as ErrorKind[]) {
      rerender(<CommandErrorView error={{ kind, message: "what happened" }} />);
      const card = screen.getByRole("alert");
      const label = card.querySelector(".command-error-kind")?.textContent ?? "";
      expect(card.firstElementChild?.textContent).toBe(label);
      expect(label).toBe(words[kind] ?? KIND_LABEL[kind]);
      // Words, not the wire name.
      expect(label).not.toContain("_");
      expect(label).not.toBe(kind);
    }
    rerender(<CommandErrorView error={new Error("boom")} />);
    expect(screen.getByRole("alert").textContent).toContain("Bug");
  });
});
