"""llama.cpp's own OpenAI-compatible server (the C++ `llama-server`, from the prebuilt xllamacpp wheel)
serving one GGUF model until SIGTERM. Started by scripts/dev/llm-server.sh, which passes the model file,
the host and the port; the model is served under the alias `smollm2` with a 2048-token context, one
slot and one thread (two threads on a busy 2-core machine collapse to ~1 token/s).
"""

import signal
import sys
import time

import xllamacpp as xlc


def main() -> None:
    model, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    params = xlc.CommonParams()
    params.model.path = model
    params.model_alias = {"smollm2"}
    params.n_ctx = 2048
    # One slot: the whole context for one request at a time, as the tests expect of a small server.
    params.n_parallel = 1
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    params.hostnames = [host]
    params.port = port
    params.warmup = False
    server = xlc.Server(params)  # serves on its own threads while this object lives
    print(f"[llm-server] llama.cpp server listening at {server.listening_address}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
