import { ACTION_HELP } from "./action-commands.js";
import { PAGE_HELP } from "./page-commands.js";
import { STATE_HELP } from "./state-commands.js";

/** What `tabwire --help` prints. */
export const USAGE = `tabwire: a WebSocket JSON-RPC hub for driving Chrome tabs

Usage:
  tabwire serve       start the hub (settings from the environment or .env; see .env.example)
  tabwire eval CODE   run JavaScript in a tab and print {"ok": true, ...result}
  tabwire mcp         MCP over stdio for MCP clients (a running hub, else one of its own; see docs/mcp.md)
  tabwire tabs [list | open URL | close TARGET | activate TARGET]
  tabwire navigate URL    tabwire back    tabwire forward    tabwire reload    tabwire stop
  tabwire snapshot [--interactive] [--dom] [--max-chars N]    tabwire content [--text]    tabwire status
  tabwire click REF    tabwire type TEXT    tabwire press KEY    tabwire fill REF VALUE    tabwire select REF VALUE...
  tabwire upload REF FILE...    tabwire wait --text T | --selector CSS | --url GLOB | --load STATE
  tabwire screenshot [-o FILE] [--full-page] [--format png|jpeg|webp] [--selector CSS]
  tabwire console [--follow] [--level LEVEL]    tabwire pdf [-o FILE] [--format A4] [--landscape]
  tabwire cookies [list | set NAME=VALUE --url URL | clear]    tabwire state export > state.json | import state.json
  tabwire network [list [--url GLOB] [--type T] | get ID [--body] | har]
  tabwire agent run "task"
  tabwire audit verify FILE...   check that audit.log's chained lines were not edited or removed
  tabwire timeline export --target T [--out FILE]    tabwire timeline view FILE   (offline, no hub)
  tabwire --version   print the version
  tabwire COMMAND --help   the options of one command

Every command but serve takes --target clientId:tabId (default: the tab in front, named in the result as
"target"), --hub URL and --token T (or TABWIRE_URL / TABWIRE_TOKEN, also read from .env; without a URL, the
hub's own HOST and PORT), and --pretty (for people: indented JSON; snapshot prints the tree's lines).
Results are JSON on stdout ({"ok": true, ...}); errors are JSON on stderr ({"ok": false, "error", "code"}).
Exit codes: 0 ok, 1 JavaScript or general error (also a hub refusing the token: code UNAUTHORIZED), 2 hub not
reachable, 3 target not found, 4 timeout (or the tab still loading a page).
`;

const COMMON = `  --target clientId:tabId   the tab (default: the only tab, else the one last opened or activated through
                             the hub, named in the result as "target"; when none was, the error lists them)
  --hub URL, --token T       the hub (default TABWIRE_URL / TABWIRE_TOKEN, else ws://HOST:PORT of .env, 127.0.0.1:8080)
  --pretty                   indented JSON
Exit codes: 0 ok, 1 JavaScript or general error (a refused token: code UNAUTHORIZED), 2 hub not reachable,
3 target not found, 4 timeout (or the tab still loading a page).`;

/** What `tabwire COMMAND --help` prints, by command. */
export const COMMAND_HELP: Record<string, string> = {
  mcp: `tabwire mcp: MCP over stdio, for MCP clients that launch a command ("command": "npx", "args": ["tabwire", "mcp"]).
It relays every frame to the /mcp of the hub --hub or TABWIRE_URL names, else of a hub answering at HOST:PORT
(the hub's settings, from .env; default 127.0.0.1:8080), else of a hub it starts itself on an embedded headless
Chromium on a free loopback port (stopped when the MCP client closes). Only MCP frames go to stdout; logs go to stderr. See docs/mcp.md.
  --hub URL, --token T       the hub and its token (default TABWIRE_URL / TABWIRE_TOKEN)
  --caps emulation,routing   tools beyond the default ones (or all): emulate and network_conditions,
                             network_route and network_unroute`,
  serve: `tabwire serve: start the hub on HOST:PORT (default 127.0.0.1:8080) with an embedded headless Chromium,
or attach to a running Chrome with CDP_URL. Settings come from the environment or .env (see .env.example).
Stop it with Ctrl-C.`,
  eval: `tabwire eval CODE: run JavaScript in a tab and print {"ok": true, "type", "value"?, ...}
Code, one way only: as arguments (joined with spaces), --code C, --file F, --stdin or -
  --timeout 30s|500ms|N      the whole budget of the call (exit 4 past it)
  --no-await                 return a promise as it is instead of awaiting it
  --max-size BYTES           truncate a bigger value ("truncated": true)
  --ref REF (or --uid REF)   run CODE, a function, on that element of the last snapshot: "(el) => el.textContent"
  --selector CSS             the same, on the first element the selector matches
${COMMON}
Examples:
  tabwire eval "1 + 1"                      {"ok":true,"type":"number","value":2}
  echo "document.title" | tabwire eval -
  tabwire eval --timeout 1s "new Promise(() => {})"   exits 4`,
  audit: `tabwire audit verify FILE... [--after HASH]: check the chain of audit.log's lines
Each line carries the hash of the one before it, so a line edited, removed or added breaks the chain at the line
after it. Give the files oldest first (audit.log2 audit.log1 audit.log); once the oldest was rotated away, start
from the head an earlier verify printed: --after HASH. Prints {"ok": true, "lines", "head"} (exit 0), or the file
and line where the chain breaks (exit 1). The last line's own edit shows once the hub writes the next one.`,
  timeline: `tabwire timeline: a tab's timeline (docs/protocol.md, "Timelines"), to keep and read later
  export --target clientId:tabId [--out FILE]   the tab's timeline (timeline.export) as JSON lines, written to
                             FILE (mode 0600; prints {"ok": true, "path", "entries", "bytes"}) or to stdout
  view FILE                  an exported timeline as rows: seq, time (UTC), kind, what, outcome, milliseconds;
                             needs no hub (the tab and the hub may be gone)
  --hub URL, --token T       the hub, for export (default TABWIRE_URL / TABWIRE_TOKEN)`,
  tabs: `tabwire tabs [list | open URL [--client ID] [--background] [--timeout 30s] | close TARGET | activate TARGET]
  list (default)             the open tabs, each with its target
  open URL                   open a tab (--client ID names its owner; --background leaves it unfocused; --timeout
                             the budget of its load, exit 4 past it)
  close TARGET, activate TARGET
  --hub URL, --token T, --pretty as for every command`,
  ...Object.fromEntries(
    Object.entries(PAGE_HELP).map(([name, help]) => [
      name,
      `${help}\n  --timeout 30s|500ms|N      the whole budget of the call (exit 4 past it: the tab may go on loading)\n${COMMON}`,
    ]),
  ),
  snapshot: `tabwire snapshot: the tab's accessibility tree, with a ref per element (for click, type, eval --ref...)
  --interactive              only what can be acted on, and what names it
  --dom                      read the tree from the DOM (source "dom": several times faster on large pages)
  --max-chars N              a page of N characters at most; --cursor C (its nextCursor) reads the next
  --diff ID                  only what changed since snapshot ID
  --pretty                   the tree's lines as they are (the snapshot's id and next cursor on stderr)
${COMMON}`,
  ...Object.fromEntries(
    Object.entries(ACTION_HELP).map(([name, help]) => [
      name,
      `${help}\n  --timeout 30s|500ms|N      the whole budget of the call (exit 4 past it)\n${COMMON}`,
    ]),
  ),
  ...Object.fromEntries(Object.entries(STATE_HELP).map(([name, help]) => [name, `${help}\n${COMMON}`])),
  content: `tabwire content [--text]: the tab's HTML (or, with --text, its visible text)\n${COMMON}`,
  screenshot: `tabwire screenshot: capture the tab, write the image and print its path and size
  -o FILE, --output FILE     where to write it (default screenshot-<time>.<format> here)
  --full-page                the whole page, not only the viewport
  --format png|jpeg|webp     default png
  --selector CSS             only that element
${COMMON}`,
  console: `tabwire console: the tab's console messages
  --follow                   stream them as JSON lines until Ctrl-C (or the tab closes)
  --level LEVEL              only log, info, warn, error or debug (repeatable)
${COMMON}`,
  agent: `tabwire agent run "task": run a task on the DevTools agent of the tab and print its answer\n${COMMON}`,
  status: `tabwire status: the hub's clients and tabs\n  --hub URL, --token T, --pretty as for every command`,
};

/** Whether the arguments ask for help. */
export const wantsHelp = (args: string[]): boolean => args.includes("--help") || args.includes("-h");
