#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/lib/bad-http-server.py: misbehaving HTTP servers for tests/e2e/remote_headers.sh
(python3 stdlib only). Usage: bad-http-server.py MODE PORTFILE

Listens on 127.0.0.1 on a free port, writes the port to PORTFILE, serves until killed.
MODE:
  drip-header   the status line, then one header byte every 0.5 s, never ending the header
  drip-body     a correct 206 for the range asked, then one body byte per second
  flood         206 claiming the range asked, no Content-Length, then an endless body at full
                speed (more than the range asked for)
  endless-header  the status line, then header lines as fast as possible, forever
Every connection is handled in its own thread; a write error (the client gone) ends it.
"""
import re
import socket
import sys
import threading
import time

MODE, PORTFILE = sys.argv[1], sys.argv[2]
TOTAL = 1_000_000_000


def read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 65536:
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    m = re.search(rb"(?i)\r\nrange:\s*bytes=(\d+)-(\d+)", data)
    return (int(m.group(1)), int(m.group(2))) if m else (0, TOTAL - 1)


def serve(conn):
    try:
        a, b = read_request(conn)
        if MODE == "drip-header":
            conn.sendall(b"HTTP/1.1 206 Partial Content\r\n")
            while True:
                conn.sendall(b"X")
                time.sleep(0.5)
        elif MODE == "endless-header":
            conn.sendall(b"HTTP/1.1 206 Partial Content\r\n")
            line = b"X-Filler: " + b"y" * 1000 + b"\r\n"
            while True:
                conn.sendall(line)
        else:
            head = (
                "HTTP/1.1 206 Partial Content\r\n"
                "Content-Type: application/octet-stream\r\n"
                f"Content-Range: bytes {a}-{b}/{TOTAL}\r\n"
            )
            if MODE == "flood":
                head += "Connection: close\r\n\r\n"
            else:
                head += f"Content-Length: {b - a + 1}\r\n\r\n"
            conn.sendall(head.encode())
            if MODE == "drip-body":
                while True:
                    conn.sendall(b"G")
                    time.sleep(1)
            else:  # flood
                block = b"G" * 65536
                while True:
                    conn.sendall(block)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    with open(PORTFILE + ".tmp", "w") as f:
        f.write(str(s.getsockname()[1]))
    import os

    os.replace(PORTFILE + ".tmp", PORTFILE)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


main()
