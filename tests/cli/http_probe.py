#!/usr/bin/env python3
"""One raw HTTP request to the cuzk daemon, for the tests: prints the
response's status code on the first line, then its body. Raw, so that it can
also send what no well-behaved client sends: a body larger than it claims to
be, a Content-Length with no body behind it, or bytes that are not HTTP.

  http_probe.py ADDR METHOD PATH [--body TEXT | --spaces N] [--token T]
                [--claim-length N] [--second-length N] [--garbage]
ADDR is unix:PATH or tcp:HOST:PORT. With --garbage nothing is parsed: it
prints what came back (possibly nothing) and exits 0."""
import argparse
import socket
import sys


def connect(addr):
    if addr.startswith("unix:"):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(addr[5:])
    else:
        host, port = addr[4:].rsplit(":", 1)
        s = socket.create_connection((host.strip("[]"), int(port)))
    s.settimeout(30)
    return s


def read_all(s):
    chunks = []
    while True:
        try:
            data = s.recv(65536)
        except (ConnectionResetError, socket.timeout):
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("addr")
    ap.add_argument("method")
    ap.add_argument("path")
    ap.add_argument("--body", default="")
    ap.add_argument("--spaces", type=int, help="a body of N spaces")
    ap.add_argument("--token")
    ap.add_argument("--claim-length", type=int)
    ap.add_argument("--second-length", type=int, help="a second Content-Length header")
    ap.add_argument("--garbage", action="store_true")
    a = ap.parse_args()
    s = connect(a.addr)
    if a.garbage:
        s.sendall(b"\x16\x03\x01\x02\x00 this is not HTTP\r\n\r\n\x00\xff")
        sys.stdout.write(repr(read_all(s)[:200]) + "\n")
        return
    body = b" " * a.spaces if a.spaces is not None else a.body.encode()
    length = a.claim_length if a.claim_length is not None else len(body)
    head = f"{a.method} {a.path} HTTP/1.1\r\nHost: cuzk\r\nConnection: close\r\n"
    head += f"Content-Type: application/json\r\nContent-Length: {length}\r\n"
    if a.second_length is not None:
        head += f"Content-Length: {a.second_length}\r\n"
    if a.token:
        head += f"Authorization: Bearer {a.token}\r\n"
    s.sendall(head.encode() + b"\r\n")
    try:
        s.sendall(body)
    except BrokenPipeError:
        pass  # the server answered early and closed: read what it said
    raw = read_all(s)
    head, _, rest = raw.partition(b"\r\n\r\n")
    status = head.split(b" ")[1].decode() if head.startswith(b"HTTP/") else "none"
    sys.stdout.write(status + "\n" + rest.decode(errors="replace") + "\n")


main()
