#!/usr/bin/env bash
# A venv outside the repo with Inspect AI (PyPI inspect-ai), for the test of `wmlab llm export --inspect`
# and scripts/research/inspect_task.py (crates/cli/tests/inspect_export.rs). Makes it when missing or at
# another version (pure-Python wheels: about a minute, once), then prints its python's path on stdout
# (messages go to stderr):
#   export WMLAB_INSPECT_PYTHON="$(scripts/dev/inspect-venv.sh)"
# scripts/dev/test.sh does this. The venv's place: WMLAB_INSPECT_VENV, else ~/.cache/wmlab/venv-inspect.
set -euo pipefail
INSPECT_VENV="${WMLAB_INSPECT_VENV:-$HOME/.cache/wmlab/venv-inspect}"
INSPECT_AI_VERSION=0.3.285
say() { printf '\033[1m[inspect-venv]\033[0m %s %s\n' "$(date +%T)" "$*" >&2; }
if [ ! -x "$INSPECT_VENV/bin/python" ]; then
  say "creating the Inspect AI venv at $INSPECT_VENV"
  mkdir -p "$(dirname "$INSPECT_VENV")"
  python3 -m venv "$INSPECT_VENV"
fi
if [ "$("$INSPECT_VENV/bin/pip" show inspect-ai 2>/dev/null | sed -n 's/^Version: //p')" != "$INSPECT_AI_VERSION" ]; then
  say "installing inspect-ai==$INSPECT_AI_VERSION"
  "$INSPECT_VENV/bin/pip" install -q --disable-pip-version-check "inspect-ai==$INSPECT_AI_VERSION" >&2
fi
echo "$INSPECT_VENV/bin/python"
