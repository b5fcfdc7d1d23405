#!/usr/bin/env python3
"""A local HTTP/1.1 server for imagepipe's loader tests (Python 3 standard library only).

Binds 127.0.0.1 on a free port, prints that port alone on the first line of stdout, and serves until stdin
closes (the test holds the pipe, so the server never outlives it).

    python3 http_test_server.py --root DIR [--tls-cert CERT.pem --tls-key KEY.pem]

With --tls-cert and --tls-key it speaks HTTPS (HTTP/1.1 over TLS) instead.

Generated bodies ("pattern bytes") are byte i = i % 251, so a test can rebuild them without a fixture.

Endpoints (GET):
  /<name>[?max_age=N]          the file DIR/<name> (e.g. /image.png), Content-Type from the extension, with ETag and
                               Last-Modified (and Cache-Control: max-age=N); If-None-Match with that ETag gets a 304;
                               "Range: bytes=A-B" (or A-) gets a 206 with Content-Range, past the end a 416
  /slow?bytes=N&delay=MS[&chunk=C]  N pattern bytes with Content-Length, C bytes (default 1024) every MS ms
  /slowfile?name=F&delay=MS[&chunk=C]  DIR/F with Content-Length, C bytes (default 1024) every MS ms
  /stall?ms=MS                 nothing for MS ms (not even the status line), then DIR/image.png
  /chunked[?name=F]            DIR/F (default image.png) with Transfer-Encoding: chunked, in 1000-byte chunks
  /status/<code>               that status with a short text body ("status <code>"; none for 204 and 304)
  /redirect?n=N                302 chain of N hops to /image.png (relative Location headers, small HTML bodies)
  /redirect-to?url=U           302 to U (any absolute URL: another origin, another port)
  /redirect-loop               302 to itself, forever
  /redirect-file               302 to file:///etc/passwd
  /wrong-type                  DIR/image.png labelled Content-Type: text/html
  /big?bytes=N                 N pattern bytes with Content-Length
  /big-no-length?bytes=N       N pattern bytes, no Content-Length, end marked by closing the connection
  /cut?bytes=N&after=M         Content-Length N, then M pattern bytes, then the connection is closed
  /gzip[?name=F|?bytes=N]      DIR/F (default image.png), or N pattern bytes, compressed, with Content-Encoding: gzip
  /echo-headers                JSON object of the request's headers (names lower-cased)
  /count                       JSON {"requests": {path: n}, "connections": n, "bytes": {path: body bytes sent}}
                               since start or the last reset;
                               requests to /count* are not counted, nor are connections that only made them
  /count/reset                 zeroes the counts
"""

import argparse
import email.utils
import gzip
import hashlib
import http.server
import json
import mimetypes
import os
import socketserver
import sys
import threading
import time
import urllib.parse

LOCK = threading.Lock()
REQUESTS = {}
BODY_BYTES = {}
CONNECTIONS = [0]


def pattern(count):
    """Pattern bytes: byte i is i % 251."""
    block = bytes(range(251))
    whole, rest = divmod(count, 251)
    return block * whole + block[:rest]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle on, the body waits for the client's delayed ACK
    # (40 ms per request on Linux), which would make every keep-alive request look slow.
    disable_nagle_algorithm = True
    server_version = "imagepipe-test"
    sys_version = ""
    root = "."

    def setup(self):
        super().setup()
        self.counted_connection = False

    def log_message(self, format, *args):
        pass

    # Helpers ----------------------------------------------------------------------------------------------

    def count(self, path):
        with LOCK:
            REQUESTS[path] = REQUESTS.get(path, 0) + 1
            if not self.counted_connection:
                self.counted_connection = True
                CONNECTIONS[0] += 1

    def send_body(self, body, content_type="application/octet-stream", status=200, extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def read_file(self, name):
        path = os.path.join(self.root, os.path.basename(name))
        if not name or not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            return handle.read()

    def redirect(self, location):
        # With a body, as real servers send, so a test sees whether a client wrongly delivers it.
        body = b"<a href='%s'>moved</a>" % location.encode()
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def close_after(self):
        """Marks the connection to close once this response is done."""
        self.close_connection = True

    # Routing ----------------------------------------------------------------------------------------------

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        query = {key: values[-1] for key, values in urllib.parse.parse_qs(url.query).items()}

        def number(name, default=0):
            return int(query.get(name, default))

        if path == "/count":
            with LOCK:
                body = json.dumps({"requests": REQUESTS, "connections": CONNECTIONS[0], "bytes": BODY_BYTES}).encode()
            return self.send_body(body, "application/json")
        if path == "/count/reset":
            with LOCK:
                REQUESTS.clear()
                BODY_BYTES.clear()
                CONNECTIONS[0] = 0
            return self.send_body(b"{}", "application/json")

        self.count(path)
        try:
            self.route(path, query, number)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def route(self, path, query, number):
        if path == "/slow":
            size, delay, chunk = number("bytes"), number("delay"), number("chunk", 1024)
            body = pattern(size)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            self.wfile.flush()
            for start in range(0, size, max(chunk, 1)):
                time.sleep(delay / 1000.0)
                self.wfile.write(body[start:start + chunk])
                self.wfile.flush()
        elif path == "/slowfile":
            body = self.read_file(query.get("name", "image.png"))
            if body is None:
                return self.send_body(b"no such file", "text/plain", 404)
            delay, chunk = number("delay"), number("chunk", 1024)
            self.send_response(200)
            self.send_header("Content-Type", mimetypes.guess_type(query.get("name", "image.png"))[0] or "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.flush()
            for start in range(0, len(body), max(chunk, 1)):
                time.sleep(delay / 1000.0)
                self.wfile.write(body[start:start + chunk])
                self.wfile.flush()
        elif path == "/stall":
            # Says nothing for MS ms (a server that accepted and hangs), then answers with image.png.
            time.sleep(number("ms") / 1000.0)
            self.send_body(self.read_file("image.png") or b"", "image/png")
        elif path == "/chunked":
            body = self.read_file(query.get("name", "image.png"))
            if body is None:
                return self.send_body(b"no such file", "text/plain", 404)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for start in range(0, len(body), 1000):
                piece = body[start:start + 1000]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        elif path.startswith("/status/"):
            code = int(path[len("/status/"):])
            self.send_body(b"" if code in (204, 304) else b"status %d" % code, "text/plain", code)
        elif path == "/redirect":
            hops = number("n")
            self.redirect("/redirect?n=%d" % (hops - 1) if hops > 1 else "/image.png")
        elif path == "/redirect-to":
            self.redirect(query.get("url", "/"))
        elif path == "/redirect-loop":
            self.redirect("/redirect-loop")
        elif path == "/redirect-file":
            self.redirect("file:///etc/passwd")
        elif path == "/wrong-type":
            self.send_body(self.read_file("image.png") or b"", "text/html")
        elif path == "/big":
            self.send_body(pattern(number("bytes")))
        elif path == "/big-no-length":
            self.close_after()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            body = pattern(number("bytes"))
            for start in range(0, len(body), 65536):
                self.wfile.write(body[start:start + 65536])
        elif path == "/cut":
            self.close_after()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(number("bytes")))
            self.end_headers()
            self.wfile.write(pattern(number("after")))
            self.wfile.flush()
        elif path == "/gzip":
            body = pattern(number("bytes")) if "bytes" in query else self.read_file(query.get("name", "image.png"))
            if body is None:
                return self.send_body(b"no such file", "text/plain", 404)
            self.send_body(gzip.compress(body), "image/png", extra=[("Content-Encoding", "gzip")])
        elif path == "/echo-headers":
            headers = {name.lower(): value for name, value in self.headers.items()}
            self.send_body(json.dumps(headers).encode(), "application/json")
        else:
            body = self.read_file(path.lstrip("/"))
            if body is None:
                return self.send_body(b"no such file", "text/plain", 404)
            # Validators as a static file server sends them; ?max_age=N adds freshness.
            file_path = os.path.join(self.root, os.path.basename(path.lstrip("/")))
            etag = '"%s"' % hashlib.sha1(body).hexdigest()[:16]
            validators = [("ETag", etag), ("Last-Modified", email.utils.formatdate(os.path.getmtime(file_path), usegmt=True))]
            if "max_age" in query:
                validators.append(("Cache-Control", "max-age=%d" % number("max_age")))
            if self.headers.get("If-None-Match") == etag:
                self.send_response(304)
                for name, value in validators:
                    self.send_header(name, value)
                self.end_headers()
                return
            content_type = mimetypes.guess_type(path)[0] or "application/octet-stream"
            wanted = self.headers.get("Range")
            if wanted:
                first, _, last = wanted.removeprefix("bytes=").partition("-")
                start = int(first)
                end = min(int(last) if last else len(body) - 1, len(body) - 1)
                if start >= len(body):
                    return self.send_body(b"", content_type, 416, extra=[("Content-Range", "bytes */%d" % len(body))])
                part = body[start:end + 1]
                with LOCK:
                    BODY_BYTES[path] = BODY_BYTES.get(path, 0) + len(part)
                return self.send_body(part, content_type, 206, extra=validators + [("Content-Range", "bytes %d-%d/%d" % (start, end, len(body)))])
            with LOCK:
                BODY_BYTES[path] = BODY_BYTES.get(path, 0) + len(body)
            self.send_body(body, content_type, extra=validators)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def handle_error(self, request, client_address):
        # A client that stops reading (a cancel, a size limit) is what several tests do on purpose.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser(description="HTTP server for imagepipe loader tests")
    parser.add_argument("--root", default=".", help="folder whose files are served by name")
    parser.add_argument("--tls-cert", help="PEM certificate: serve HTTPS")
    parser.add_argument("--tls-key", help="PEM private key of --tls-cert")
    arguments = parser.parse_args()
    Handler.root = os.path.abspath(arguments.root)
    server = Server(("127.0.0.1", 0), Handler)
    if arguments.tls_cert:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments.tls_cert, arguments.tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # The test owns our stdin: when it closes (the test ended, or crashed), stop at once.
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
