"""Starts llama.cpp's own C++ HTTP server (the one `llama-server` runs) through xllamacpp, for the runner's
real-server tests and for trying the runner against a local model (docs/operations/local-models.md).

    python serve.py --model SmolLM2.gguf [--port 0] [--ctx-size 2048] [--n-predict -1] [--threads 2]

Prints one line, `listening <url>`, once the model is loaded and the server answers, then serves until
SIGTERM or SIGINT, or until its standard input closes (so a parent that dies never leaves it running).
"""

import argparse
import signal
import sys
import threading

import xllamacpp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a GGUF file")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--ctx-size", type=int, default=2048, help="the context window, in tokens")
    parser.add_argument("--n-predict", type=int, default=-1, help="the server's cap on generated tokens; -1: none")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads; 0: llama.cpp's default")
    parser.add_argument("--temp", type=float, default=None, help="the sampling temperature; 0 answers the same every time")
    parser.add_argument(
        "--no-cache-prompt",
        action="store_true",
        help="evaluate every prompt from scratch: a reused prefix can change a temperature-0 answer",
    )
    parser.add_argument("--alias", default=None, help="the model name the server reports")
    parser.add_argument("--chat-template-file", default=None, help="a Jinja chat template instead of the model's own")
    args = parser.parse_args()

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.ctx_size
    params.n_predict = args.n_predict
    params.n_parallel = 1
    # Chat templates with tools (tool calls parsed from the model's output) need the Jinja renderer.
    params.use_jinja = True
    if args.temp is not None:
        params.sampling.temp = args.temp
    if args.no_cache_prompt:
        params.cache_prompt = False
    if args.alias:
        params.model_alias = {args.alias}
    if args.chat_template_file:
        with open(args.chat_template_file, encoding="utf-8") as template:
            params.chat_template = template.read()
    if args.threads > 0:
        params.cpuparams.n_threads = args.threads
        params.cpuparams_batch.n_threads = args.threads

    server = xllamacpp.Server(params)
    print(f"listening {server.listening_address}", flush=True)

    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait()
    del server


if __name__ == "__main__":
    main()
