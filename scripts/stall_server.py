#!/usr/bin/env python3
"""A web server that never finishes: every GET is answered with headers promising 1 MB, then
one byte every 2 seconds until the client hangs up. For scripts/fault-inject.sh (c).

Usage: stall_server.py PORT_FILE   (binds 127.0.0.1 on a free port, writes it to PORT_FILE)
"""
import socketserver
import sys
import time


class Stall(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(30)
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = self.request.recv(4096)
                if not chunk:
                    return
                data += chunk
            self.request.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                b"Content-Length: 1000000\r\nAccept-Ranges: bytes\r\n\r\n"
            )
            while True:
                self.request.sendall(b"0")
                time.sleep(2)
        except OSError:
            return


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    with Server(("127.0.0.1", 0), Stall) as server:
        with open(sys.argv[1], "w") as f:
            f.write(str(server.server_address[1]))
        server.serve_forever()


if __name__ == "__main__":
    main()
