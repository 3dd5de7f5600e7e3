#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/lib/range-http-server.py: a small HTTP server for CLI tests of remote GGUF headers
(python3 stdlib only). Usage: range-http-server.py ROOT PORTFILE [LOG [DELAY_MS]]

Listens on 127.0.0.1 on a free port, writes the port to PORTFILE, serves files under ROOT
until killed: GET with "Range: bytes=A-B" answers 206 with Content-Range and a fixed ETag per
file; If-None-Match with that ETag answers 304. The query string is ignored (a signed URL's
parameters reach the server and nothing else). With LOG, one line per request is appended
there: the request line, then TAB-separated the status, the Range header ("-" without one) and
the body bytes sent. With DELAY_MS, every request waits that long before it is answered (a
link's round trip, for bench/remote-headers).
"""
import http.server
import os
import sys
import time

ROOT, PORTFILE = sys.argv[1], sys.argv[2]
LOG = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
DELAY = float(sys.argv[4]) / 1000 if len(sys.argv) > 4 else 0.0


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def log_sent(self, code, n):
        if LOG:
            with open(LOG, "a") as f:
                f.write("%s\t%d\t%s\t%d\n" % (self.requestline, code, self.headers.get("Range", "-"), n))

    def do_GET(self):
        if DELAY:
            time.sleep(DELAY)
        path = os.path.join(ROOT, self.path.split("?")[0].split("#")[0].lstrip("/"))
        if not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            self.log_sent(404, 0)
            return
        size = os.path.getsize(path)
        etag = '"%x-%x"' % (size, int(os.path.getmtime(path)))
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            self.log_sent(304, 0)
            return
        a, b = 0, size - 1
        rng = self.headers.get("Range", "")
        if rng.startswith("bytes="):
            lo, _, hi = rng[6:].partition("-")
            a, b = int(lo), min(int(hi or size - 1), size - 1)
        with open(path, "rb") as f:
            f.seek(a)
            body = f.read(b - a + 1)
        self.send_response(206 if rng else 200)
        self.send_header("ETag", etag)
        self.send_header("Content-Length", str(len(body)))
        if rng:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (a, b, size))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:  # the client stopped the transfer: what it got is not known here
            self.log_sent(206 if rng else 200, -1)
            return
        self.log_sent(206 if rng else 200, len(body))


s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(s.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
s.serve_forever()
