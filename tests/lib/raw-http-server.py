#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/lib/raw-http-server.py: servers that answer an HTTP request wrongly, for the failure
messages of `client --url` (tests/cli/client_http_errors.sh). Python standard library only.
Usage: raw-http-server.py MODE PORTFILE

Listens on 127.0.0.1 on a free port, writes the port to PORTFILE, serves until killed; each
connection in its own thread, a write error (the client gone) ends it. The request is read up
to the end of its body (Content-Length) before the answer, except where MODE says otherwise.
MODE:
  silent          accepts, reads the request, never answers (the connection stays open)
  continue-flood  "HTTP/1.1 100 Continue" interim responses, as fast as possible, forever
  http09          a body with no status line (HTTP/0.9 style), then closes
  bad-status      "HTTP/1.1 abc Strange" as the status line, then closes
  empty           reads the request, closes without a byte
  truncated       200 text/event-stream, Content-Length 100000, one event, then closes
  plain           a correct small 200 to anything at once (a plain server behind an https URL)
  full            never accepts: a backlog of 0 filled by the server's own connections, so a
                  client's connection attempt is never answered (times out before connecting)
"""
import os
import re
import socket
import sys
import threading
import time

MODE, PORTFILE = sys.argv[1], sys.argv[2]


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 1 << 20:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)
    want = int(m.group(1)) if m else 0
    while len(body) < want:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return data


def serve(conn):
    try:
        if MODE == "plain":
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            time.sleep(1)
            return
        read_request(conn)
        if MODE == "silent":
            while conn.recv(65536):
                pass
        elif MODE == "continue-flood":
            while True:
                conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n" * 64)
        elif MODE == "http09":
            conn.sendall(b"data: {\"choices\": []}\n\ndata: [DONE]\n\n")
        elif MODE == "bad-status":
            conn.sendall(b"HTTP/1.1 abc Strange\r\nContent-Length: 0\r\n\r\n")
        elif MODE == "truncated":
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Content-Length: 100000\r\n\r\n"
                b'data: {"choices": [{"delta": {"content": "half"}}]}\n\n'
            )
            time.sleep(0.05)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(0 if MODE == "full" else 64)
    fillers = []
    while MODE == "full" and len(fillers) < 8:  # fill the accept queue and the SYN backlog
        c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        c.setblocking(False)
        c.connect_ex(srv.getsockname())
        fillers.append(c)
    time.sleep(0.2 if MODE == "full" else 0)
    with open(PORTFILE + ".tmp", "w") as f:
        f.write(str(srv.getsockname()[1]))
    os.rename(PORTFILE + ".tmp", PORTFILE)
    while MODE == "full":
        time.sleep(3600)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
