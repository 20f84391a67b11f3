// The dashboard's entry: sign-in, the connection to the hub, and hash routing between the overview and the tab views.

import { byId, setText } from "./dom.js";
import { Overview } from "./overview.js";
import { type ConnectionState, Rpc } from "./rpc.js";
import { Screencasts } from "./screencast.js";
import { type Session, bindSignInForm, getSession, showSignIn, signOut } from "./session.js";
import { TabView } from "./tab-view.js";
import { TimelineFileView } from "./timeline-file-view.js";
import type { AppContext, View } from "./view.js";

/** A route of the hash: `#/` the overview, `#/tab/<encoded target>` a tab, `#/timeline-file` an exported timeline. */
export type Route = { name: "overview" } | { name: "tab"; target: string } | { name: "timeline-file" };

/** Reads a location hash into a route; anything unknown is the overview. */
export function parseRoute(hash: string): Route {
  if (hash === "#/timeline-file") return { name: "timeline-file" };
  const match = /^#\/tab\/(.+)$/.exec(hash);
  if (!match?.[1]) return { name: "overview" };
  try {
    return { name: "tab", target: decodeURIComponent(match[1]) };
  } catch {
    return { name: "overview" };
  }
}

/** The connection's state as the header says it. */
function connectionText(state: ConnectionState, retryInMs: number): string {
  switch (state) {
    case "connecting":
      return "connecting…";
    case "open":
      return "connected";
    case "disconnected":
      return `disconnected (retrying in ${Math.round(retryInMs / 1000)} s)`;
    case "stopped":
      return "";
  }
}

/** The signed-in dashboard: one connection, one view at a time. */
class Dashboard {
  private readonly context: AppContext;
  private view: View | null = null;
  private wasOpen = false;
  private readonly onSignedOut: (message: string) => void;
  private readonly onHashChange = (): void => this.route(true);

  /** focus: move the focus to the view's heading (after the sign-in form, whose field is hidden now). */
  constructor(options: { session: Session; focus: boolean; onSignedOut: (message: string) => void }) {
    const { session, focus } = options;
    this.onSignedOut = options.onSignedOut;
    const rpc = new Rpc({
      url: `${location.origin.replace(/^http/, "ws")}/rpc`,
      sessionAlive: async () => {
        const answer = await getSession();
        return answer.ok || answer.status !== 401;
      },
      onSignedOut: () => this.end("Your session ended: sign in again."),
    });
    this.context = { rpc, screencasts: new Screencasts(rpc) };
    rpc.onState((state, retryInMs) => this.onState(state, retryInMs));
    showHeader(session);
    window.addEventListener("hashchange", this.onHashChange);
    this.route(focus);
    rpc.start();
  }

  /** Signs out: the hub forgets the session, the page shows the sign-in form. */
  async signOut(): Promise<void> {
    await signOut();
    this.end("");
  }

  /** Stops everything and goes back to the sign-in form with a message. */
  end(message: string): void {
    window.removeEventListener("hashchange", this.onHashChange);
    this.view?.dispose();
    this.view = null;
    byId("view").replaceChildren();
    this.context.rpc.stop();
    hideHeader();
    this.onSignedOut(message);
  }

  private onState(state: ConnectionState, retryInMs: number): void {
    const status = byId("conn-status");
    status.dataset.state = state;
    setText(status, connectionText(state, retryInMs));
    if (state === "open") {
      this.wasOpen = true;
      this.view?.connected();
    } else if (this.wasOpen) {
      this.wasOpen = false;
      this.view?.disconnected();
    }
  }

  /** Shows the view of the current hash (the one shown before is disposed: its subscriptions end). */
  private route(focus: boolean): void {
    const route = parseRoute(location.hash);
    this.view?.dispose();
    const view = viewOf(route, this.context);
    this.view = view;
    byId("view").replaceChildren(view.element);
    document.title = view.title;
    if (this.context.rpc.isOpen) view.connected();
    if (focus) {
      const heading = view.element.querySelector("h1");
      if (heading) {
        heading.tabIndex = -1;
        heading.focus({ preventScroll: true });
      }
      window.scrollTo(0, 0);
    }
  }
}

/** The view of a route. */
function viewOf(route: Route, context: AppContext): View {
  switch (route.name) {
    case "tab":
      return new TabView(context, route.target);
    case "timeline-file":
      return new TimelineFileView();
    case "overview":
      return new Overview(context);
  }
}

/** The header's session part: the scope, and Sign out (not when the hub needs no token). */
function showHeader(session: Session): void {
  byId("sign-out").hidden = session.via === "open";
  const scope = byId("session-scope");
  setText(scope, session.scope ? `clients: ${session.scope.join(", ")}` : "");
  scope.hidden = !session.scope;
}

function hideHeader(): void {
  byId("sign-out").hidden = true;
  byId("session-scope").hidden = true;
  const status = byId("conn-status");
  setText(status, "");
  delete status.dataset.state;
}

/** Starts the page: asks for the session, then shows the dashboard or the sign-in form. */
async function boot(): Promise<void> {
  let dashboard: Dashboard | null = null;
  const start = (session: Session, focus: boolean): void => {
    showSignIn(false);
    const onSignedOut = (message: string): void => {
      dashboard = null;
      showSignIn(true, message);
    };
    dashboard = new Dashboard({ session, focus, onSignedOut });
  };
  bindSignInForm((session) => start(session, true));
  byId("sign-out").addEventListener("click", () => void dashboard?.signOut());
  const answer = await getSession();
  if (answer.ok) {
    start(answer.session, false);
    return;
  }
  byId("view").replaceChildren();
  showSignIn(true, answer.status === 401 ? "" : answer.message);
}

void boot();
