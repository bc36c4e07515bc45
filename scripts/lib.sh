# Shared by scripts/serve.sh and scripts/test.sh (sourced, not run): find a Python >= 3.11, make
# the project's virtualenv and install the project into it. Nothing here touches the system
# except apt-get, and only for packages that are missing (python3-venv, chromium).

set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${CRAPETTE_VENV:-$REPO_ROOT/.venv}"
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Run a command as root: directly when we are root (CI, containers), else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        die "need root to run: $* (install sudo or run as root)"
    fi
}

APT_UPDATED=0
apt_install() {
    command -v apt-get >/dev/null 2>&1 || die "apt-get not found: please install $* yourself"
    if [ "$APT_UPDATED" -eq 0 ]; then
        say "apt-get update"
        as_root apt-get update -qq </dev/null
        APT_UPDATED=1
    fi
    say "apt-get install $*"
    as_root apt-get install -y -qq --no-install-recommends "$@" </dev/null
}

# The first interpreter >= 3.11 among $PYTHON, python3, python3.13 ... python3.11.
find_python() {
    local candidate
    for candidate in ${PYTHON:-} python3 python3.13 python3.12 python3.11; do
        if command -v "$candidate" >/dev/null 2>&1 \
            && "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            command -v "$candidate"
            return 0
        fi
    done
    die "Python >= 3.11 not found (set PYTHON=/path/to/python3.11 or install python3)"
}

# Create $VENV if it is missing. Debian ships venv without ensurepip; install python3-venv then.
ensure_venv() {
    [ -x "$VENV/bin/python" ] && return 0
    local python
    python="$(find_python)"
    say "creating virtualenv $VENV with $python"
    if ! "$python" -m venv "$VENV" 2>/dev/null; then
        rm -rf "$VENV"
        local minor
        minor="$("$python" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')"
        apt_install "python$minor-venv" || apt_install python3-venv
        "$python" -m venv "$VENV"
    fi
}

# pip install the project (editable, so a `git pull` needs no reinstall) with the given extras
# spec, e.g. "" or "[test]". Skipped when pyproject.toml has not changed since the last install.
install_project() {
    local extras="$1"
    local stamp="$VENV/.crapette-installed${extras//[^a-z]/-}"
    local wanted
    wanted="$(sha256sum "$REPO_ROOT/pyproject.toml" | cut -d' ' -f1)"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ]; then
        return 0
    fi
    say "installing crapette$extras into $VENV (the first time downloads the dependencies)"
    "$VENV/bin/python" -m pip install --quiet --editable "$REPO_ROOT$extras"
    echo "$wanted" >"$stamp"
}
