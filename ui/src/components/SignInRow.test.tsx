import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { SignInRow } from "./SignInRow";
import type { SignInView } from "../wire/SignInView";

const signedOut: SignInView = { signed_in: false, needed: false, more_scope: false, scopes: [], storage: "the OS keyring", in_keyring: true, problem: null, method: null };

vi.mock("../ipc", () => ({
  signInState: vi.fn().mockResolvedValue(null),
  onSignInStarted: () => () => {},
  signIn: vi.fn().mockResolvedValue({ signed_in: true, needed: false, more_scope: false, scopes: [], storage: "the OS keyring", in_keyring: true, problem: null, method: "client credentials, DPoP-bound" }),
  signOut: vi.fn(),
  errorText: (e: unknown) => String(e),
}));

describe("SignInRow", () => {
  it("offers a browser sign-in for a server without a machine grant", () => {
    render(<SignInRow server="notes" initial={signedOut} listing={0} onSignedIn={() => {}} />);
    expect(screen.getByRole("button", { name: "Sign in" }).title).toBe("Sign in to notes in your browser");
    expect(screen.getByText(/signs in with OAuth when it asks/)).toBeTruthy();
  });

  it("gets a token without a browser for a machine grant, and says how", async () => {
    const user = userEvent.setup();
    const onSignedIn = vi.fn();
    render(<SignInRow server="billing" initial={{ ...signedOut, method: "client credentials, DPoP-bound" }} listing={0} onSignedIn={onSignedIn} />);
    expect(screen.getByText(/client credentials, DPoP-bound/)).toBeTruthy();
    expect(screen.getByText(/gets its token by itself/)).toBeTruthy();
    await user.click(screen.getByRole("button", { name: "Get token" }));
    expect(onSignedIn).toHaveBeenCalledTimes(1);
    expect(await screen.findByText("Signed in")).toBeTruthy();
  });

  it("names DPoP on a browser sign-in and keeps the Sign in button", () => {
    render(<SignInRow server="notes" initial={{ ...signedOut, method: "browser sign-in, DPoP-bound" }} listing={0} onSignedIn={() => {}} />);
    expect(screen.getByRole("button", { name: "Sign in" })).toBeTruthy();
    expect(screen.getByText(/browser sign-in, DPoP-bound/)).toBeTruthy();
  });
});
