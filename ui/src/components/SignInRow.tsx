import { useEffect, useState } from "react";
import { errorText, onSignInStarted, signIn, signInState, signOut } from "../ipc";
import type { SignInView } from "../wire/SignInView";

interface Props {
  server: string;
  /** The state as listed with the servers; fetched again after each listing. */
  initial: SignInView;
  /** Bumped when the server's tools were listed (a 401 there makes the state "needed"). */
  listing: number;
  /** The sign-in finished: list the tools again. */
  onSignedIn: () => void;
}

/** An HTTP server's sign-in (OAuth): where it stands, Sign in / Sign out, and while the browser
 * is busy, the page it was handed (for a user whose browser did not open). */
export function SignInRow({ server, initial, listing, onSignedIn }: Props) {
  const [view, setView] = useState<SignInView>(initial);
  const [busy, setBusy] = useState<"in" | "out" | null>(null);
  const [pageUrl, setPageUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    signInState(server).then(
      (state) => live && state && setView(state),
      () => {},
    );
    return () => {
      live = false;
    };
  }, [server, listing]);

  useEffect(
    () =>
      onSignInStarted((event) => {
        if (event.server === server) setPageUrl(event.url);
      }),
    [server],
  );

  async function run(which: "in" | "out") {
    setBusy(which);
    setError(null);
    try {
      setView(which === "in" ? await signIn(server) : await signOut(server));
      if (which === "in") onSignedIn();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(null);
      setPageUrl(null);
    }
  }

  const state = view.needed && view.more_scope ? "needs-more" : view.needed && !view.signed_in ? "needed" : view.signed_in ? "signed-in" : "signed-out";
  // A machine grant (`oauth.grant`) gets its token without a browser.
  const machine = view.method !== null && !view.method.startsWith("browser");
  const words = {
    "needs-more": "Needs more permission — sign in again",
    needed: "Sign-in needed",
    "signed-in": view.scopes.length > 0 ? `Signed in (${view.scopes.join(" ")})` : "Signed in",
    "signed-out": "Not signed in",
  }[state];
  return (
    <div className="sign-in" data-sign-in={state}>
      <p className="sign-in-state">
        <span className="sign-in-words">{busy === "in" ? (machine ? "Getting a token…" : "Signing in… finish in your browser") : words}</span>
        {view.signed_in || view.needed ? null : <span className="muted"> · {machine ? "gets its token by itself" : "signs in with OAuth when it asks"}</span>}
        {view.method ? <span className="muted sign-in-method"> · {view.method}</span> : null}
      </p>
      <div className="server-actions">
        {state !== "signed-in" ? (
          <button type="button" className="server-action sign-in-button" disabled={busy !== null} onClick={() => void run("in")} title={machine ? `Get a token for ${server} (${view.method})` : `Sign in to ${server} in your browser`}>
            {machine ? "Get token" : "Sign in"}
          </button>
        ) : null}
        {view.signed_in ? (
          <button type="button" className="server-action sign-out-button" disabled={busy !== null} onClick={() => void run("out")} title={`Forget ${server}'s tokens`}>
            Sign out
          </button>
        ) : null}
      </div>
      {busy === "in" && pageUrl ? (
        <p className="muted small sign-in-url">
          Browser did not open? Open <span className="selectable">{pageUrl}</span>
        </p>
      ) : null}
      {view.in_keyring ? null : <p className="muted small sign-in-storage">Tokens are kept in {view.storage}.</p>}
      {view.problem ? <p className="error small">{view.problem}</p> : null}
      {error ? <p className="error small sign-in-error">{error}</p> : null}
    </div>
  );
}
