#!/usr/bin/env bash
# Install the server into .venv and start it: `crapette serve` keeps its games in SQLite under
# ./data, listens on every interface so other machines on the LAN can join, and prints the URL.
#   bash scripts/serve.sh                   defaults
#   bash scripts/serve.sh --port 8080       extra arguments go to `crapette serve`

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

ensure_venv
install_project ""

exec "$VENV/bin/crapette" serve "$@"
