import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { CommandErrorView } from "./CommandErrorView";

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
});
