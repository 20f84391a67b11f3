// Sign-in: the session endpoints of /ui/session and the sign-in form of index.html.

import { byId, setText } from "./dom.js";

/** A signed-in session: the clients the token may see (null: all) and how it was made (`open`: the hub needs no token). */
export interface Session {
  signedIn: true;
  scope: string[] | null;
  /** What the token may do (null: everything): the page leaves out the controls it may not use. */
  capabilities: string[] | null;
  via: "cookie" | "open" | string;
}

/** What asking for the session gave: the session, or why not (`status` 0 when the hub could not be reached). */
export type SessionAnswer = { ok: true; session: Session } | { ok: false; status: number; message: string };

const SESSION_URL = "/ui/session";

// The signed-in token's capabilities (null: every one), for the controls that need one.
let capabilities: string[] | null = null;

/** Whether the signed-in token may use a capability (`act` for the take-over, `agents` for pause and resume). */
export function mayUse(capability: string): boolean {
  return capabilities === null || capabilities.includes(capability);
}

/** GET /ui/session: the current session, or a 401's message. */
export async function getSession(): Promise<SessionAnswer> {
  return sessionRequest("GET");
}

/** POST /ui/session with a token: signs in (the hub sets an HttpOnly cookie), or the hub's message on a 401. */
export async function signIn(token: string): Promise<SessionAnswer> {
  const answer = await sessionRequest("POST", { token });
  if (answer.ok && !answer.session.via) answer.session.via = "cookie";
  return answer;
}

/** DELETE /ui/session: signs out (the hub clears the cookie). Failures are only logged: the page shows the form anyway. */
export async function signOut(): Promise<void> {
  try {
    await fetch(SESSION_URL, { method: "DELETE", credentials: "same-origin" });
  } catch (error) {
    console.warn("sign-out failed", error);
  }
}

async function sessionRequest(method: "GET" | "POST", body?: object): Promise<SessionAnswer> {
  let response: Response;
  try {
    response = await fetch(SESSION_URL, {
      method,
      credentials: "same-origin",
      headers: body ? { "content-type": "application/json", accept: "application/json" } : { accept: "application/json" },
      body: body ? JSON.stringify(body) : undefined,
      cache: "no-store",
    });
  } catch {
    return { ok: false, status: 0, message: "The hub cannot be reached." };
  }
  const json = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (response.ok && json && json.signedIn === true) {
    const scope = Array.isArray(json.scope) ? json.scope.map(String) : null;
    capabilities = Array.isArray(json.capabilities) ? json.capabilities.map(String) : null;
    return { ok: true, session: { signedIn: true, scope, capabilities, via: typeof json.via === "string" ? json.via : "" } };
  }
  const error = json?.error as { message?: unknown } | undefined;
  const message = typeof error?.message === "string" ? error.message : `The hub answered ${response.status}.`;
  return { ok: false, status: response.status, message };
}

/** Shows or hides the sign-in view; showing it empties the token field and focuses it, with an optional message. */
export function showSignIn(visible: boolean, message = ""): void {
  byId("sign-in-view").hidden = !visible;
  setText(byId("sign-in-error"), message);
  if (visible) {
    const input = byId<HTMLInputElement>("token");
    input.value = "";
    input.focus();
  }
}

/** Wires the sign-in form: on submit POSTs the token and calls onSignedIn with the session, or shows the hub's message. */
export function bindSignInForm(onSignedIn: (session: Session) => void): void {
  const form = byId<HTMLFormElement>("sign-in-form");
  const input = byId<HTMLInputElement>("token");
  const button = byId<HTMLButtonElement>("sign-in");
  const error = byId("sign-in-error");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) {
      setText(error, "Enter a token.");
      input.focus();
      return;
    }
    button.disabled = true;
    setText(error, "");
    void signIn(token).then((answer) => {
      button.disabled = false;
      if (answer.ok) {
        input.value = "";
        onSignedIn(answer.session);
      } else {
        setText(error, answer.message);
        input.select();
      }
    });
  });
}
