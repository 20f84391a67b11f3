#!/usr/bin/env bash
# Puts this clone's `tabwire` command on the PATH (npm run setup runs it after the build), so that the README's
# commands and MCP configs work from any folder: `npm link` when npm's global folders are writable (also what lets
# another project `npm link tabwire`), else a link in ~/.local/bin or ~/bin when one is on the PATH; else it prints
# the one line that does it. It prints the command's absolute path either way.
set -euo pipefail
cd "$(dirname "$0")/.."
cli="$PWD/dist/src/cli.js"
[ -f "$cli" ] || { echo "link-cli: $cli is missing: run npm run build first" >&2; exit 1; }
chmod +x "$cli"

# The `tabwire` the shell finds, when it is this clone's (npm link's is a link to a link, hence readlink -f).
ours() {
  hash -r
  local found
  found="$(command -v tabwire 2>/dev/null)" || return 1
  [ "$(readlink -f "$found")" = "$cli" ] && echo "$found"
}

prefix="$(npm prefix -g)"
if ! ours >/dev/null && [ -w "$prefix/bin" ] && { [ -w "$prefix/lib/node_modules" ] || [ -w "$prefix/lib" ]; }; then
  npm link --no-audit --no-fund --ignore-scripts >/dev/null || echo "link-cli: npm link failed; trying a link of its own" >&2
fi
if ! ours >/dev/null; then
  for dir in "$HOME/.local/bin" "$HOME/bin"; do
    case ":$PATH:" in *":$dir:"*) ;; *) continue ;; esac
    if mkdir -p "$dir" 2>/dev/null && ln -sfn "$cli" "$dir/tabwire" 2>/dev/null; then break; fi
  done
fi

if command="$(ours)"; then
  echo "setup: the tabwire command is $command (this clone's dist/src/cli.js); try: tabwire --version"
  echo "setup: an MCP client that does not search your PATH can run {\"command\": \"$command\", \"args\": [\"mcp\"]}"
else
  other="$(command -v tabwire 2>/dev/null || true)"
  [ -z "$other" ] || echo "setup: the PATH finds another tabwire first: $other -> $(readlink -f "$other")"
  echo "setup: tabwire is not on your PATH (npm's global folder $prefix is not writable, and neither ~/.local/bin nor ~/bin is on the PATH); this line puts it there:"
  echo "  mkdir -p ~/.local/bin && ln -sfn '$cli' ~/.local/bin/tabwire && echo 'export PATH=\"\$HOME/.local/bin:\$PATH\"' >> ~/.profile && export PATH=\"\$HOME/.local/bin:\$PATH\""
  echo "setup: or run the command by its absolute path: $cli (an MCP config: {\"command\": \"$cli\", \"args\": [\"mcp\"]})"
fi
