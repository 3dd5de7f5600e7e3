#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/lib/stream-completion.py: a streaming command for `client --cmd` backed by a real
llama-server (tests/e2e/client_cmd_llama_server.sh): reads the prompt on stdin, POSTs it to
http://127.0.0.1:PORT/completion with "stream": true and writes each content piece to stdout as
it arrives (flushed), like `ollama run`. With --count it is a token counter instead: it prints
the number of tokens /tokenize gives for stdin (no special tokens).
usage: stream-completion.py PORT [--count] [--n-predict N]"""
import json, sys, urllib.request

def main():
    port = sys.argv[1]
    count = "--count" in sys.argv
    n = int(sys.argv[sys.argv.index("--n-predict") + 1]) if "--n-predict" in sys.argv else 24
    text = sys.stdin.read()
    base = "http://127.0.0.1:%s" % port
    if count:
        body = {"content": text, "add_special": False}
        req = urllib.request.Request(base + "/tokenize", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            print(len(json.load(r)["tokens"]))
        return
    body = {"prompt": text, "n_predict": n, "stream": True, "temperature": 0}
    req = urllib.request.Request(base + "/completion", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        for line in r:
            line = line.decode("utf-8", "replace").strip()
            if not line.startswith("data:"):
                continue
            ev = json.loads(line[5:])
            piece = ev.get("content", "")
            if piece:
                sys.stdout.write(piece)
                sys.stdout.flush()
            if ev.get("stop"):
                break

main()
