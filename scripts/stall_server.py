#!/usr/bin/env python3
"""Web servers that never give a proper answer, for scripts/fault-inject.sh. Every GET gets
the same treatment, whatever the path:

  stall    (default) headers promising 1 MB, then one byte every 2 seconds
  endless  200 with no Content-Length, then zeros as fast as the client takes them, forever
  huge     200 announcing a Content-Length of 10^12 bytes, then zeros as fast as taken
  trickle  200 with no Content-Length, then one byte every 2 seconds, forever
  silent   reads the request, then sends nothing at all
  headers  sends the status line, then one byte of a header every 2 seconds, forever

Each connection lasts until the client hangs up (at most an hour).

Usage: stall_server.py PORT_FILE [MODE]   (binds 127.0.0.1 on a free port, writes it to
PORT_FILE)
"""
import socketserver
import sys
import time

MODES = ("stall", "endless", "huge", "trickle", "silent", "headers")
MODE = "stall"
CHUNK = b"0" * 65536


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(30)
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = self.request.recv(4096)
                if not chunk:
                    return
                data += chunk
            self.request.settimeout(3600)
            send = self.request.sendall
            if MODE == "stall":
                send(b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                     b"Content-Length: 1000000\r\nAccept-Ranges: bytes\r\n\r\n")
                self.slowly(b"0")
            elif MODE == "endless":
                send(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
                while True:
                    send(CHUNK)
            elif MODE == "huge":
                send(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n")
                while True:
                    send(CHUNK)
            elif MODE == "trickle":
                send(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
                self.slowly(b"0")
            elif MODE == "silent":
                time.sleep(3600)
            elif MODE == "headers":
                send(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                self.slowly(b"a")
        except OSError:
            return

    def slowly(self, byte):
        for _ in range(1800):
            self.request.sendall(byte)
            time.sleep(2)


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    global MODE
    if len(sys.argv) > 2:
        MODE = sys.argv[2]
    if len(sys.argv) < 2 or MODE not in MODES:
        sys.exit(f"usage: {sys.argv[0]} PORT_FILE [{'|'.join(MODES)}]")
    with Server(("127.0.0.1", 0), Handler) as server:
        with open(sys.argv[1], "w") as f:
            f.write(str(server.server_address[1]))
        server.serve_forever()


if __name__ == "__main__":
    main()
