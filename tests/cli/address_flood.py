#!/usr/bin/env python3
"""One address floods a TCP listener of the daemon with connections that
never show the token, while a connection from another address waits; for
tests/cli/connection_limits.sh. Every check is decided by what the server
does (a connection closed, a response), never by how long anything takes;
the timeouts below only bound a failure.

  address_flood.py LISTENER FLOOD_FROM BYSTANDER BYSTANDER_FROM TOKEN PER_ADDRESS COUNT
LISTENER and BYSTANDER are HOST:PORT (a bracketed IPv6 host allowed);
FLOOD_FROM and BYSTANDER_FROM the local addresses the connections come
from (any of 127.0.0.0/8 on Linux). With the daemon's
unauthenticated_per_address = PER_ADDRESS:
  - the bystander connects first and sends nothing (a request refused
    with 401 would end its connection); on one listener the server takes
    connections in the order they came, so it is counted before the flood;
  - of COUNT connections from FLOOD_FROM the first COUNT - PER_ADDRESS are
    closed by the server;
  - the bystander's connection then sends the token and is answered 200:
    the flood did not push it out;
  - a new connection from FLOOD_FROM with the token is answered 200; it
    pushed out its address's oldest, and the other PER_ADDRESS - 1 are
    still open (each answered 401, which ends them: so checked last);
  - a pool of PER_ADDRESS connections from FLOOD_FROM whose requests are
    under way (request line sent, headers not ended) is not pushed out by
    one more from that address: each request, finished with the token, is
    answered 200. The server spares a speaking connection for a grace of
    seconds; a try that took longer than it proves nothing and is redone,
    and so is one whose pool was pushed out before it spoke.
The last line printed, "redone tries: N", says how many tries were redone:
each may have had connections closed for the address's share."""
import socket
import struct
import sys
import time

WAIT_S = 120  # a generous bound on a loaded machine; nothing here is timed
SPEAKING_GRACE_S = 2.0  # http_server.c's HTTP_SPEAKING_GRACE_S
# tries of the speaking pool before "nothing to tell": a loaded machine
# (CI's two cores building beside) made five in a row too slow once
TRIES = 20


def split(hostport):
    host, port = hostport.rsplit(":", 1)
    return host.strip("[]"), int(port)


def connect(listener, source):
    host, port = split(listener)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(WAIT_S)
    s.bind((source, 0))
    s.connect((host, port))
    return s


REQUEST_LINE = "GET /v1/status HTTP/1.1\r\n"


def request(s, token=None, started=False):
    """GET /v1/status on a kept-alive connection (started: its request line
    was sent already): the status code, or None when the server closed the
    connection instead of answering."""
    head = ("" if started else REQUEST_LINE) + "Host: cuzk\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    try:
        s.sendall((head + "\r\n").encode())
        raw = b""
        while b"\r\n\r\n" not in raw:
            data = s.recv(65536)
            if not data:
                return None
            raw += data
    except (ConnectionResetError, BrokenPipeError):
        return None
    head, _, body = raw.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        data = s.recv(65536)
        if not data:
            return None
        body += data
    return int(head.split(b" ")[1])


TCP_ESTABLISHED = 1


def tcp_state(s):
    """s's TCP state and the bytes sent on it that the server's kernel
    acknowledged, its SYN counted as one (tcp_info's tcpi_state, offset 0,
    and tcpi_bytes_acked, offset 120 in linux/tcp.h; None where the kernel
    does not report it)."""
    info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    return info[0], struct.unpack_from("<Q", info, 120)[0] if len(info) >= 128 else None


def wait_heard(s, n):
    """Waits until the server's kernel has the n bytes sent on s (n - 1 at
    least, as the SYN counts too; any byte will do): True, and the server
    then counts the connection speaking (http_server.c's bytes_heard)
    whether its thread read them yet or not; False when the server closed
    s first (it was pushed out while silent). The state is asked first: a
    connection pushed out is only shut down until its thread sees it, and
    the server's kernel still acknowledges bytes that arrive after (a
    pool's request was then answered None here, under load). Without the
    wait, on a loaded machine a later connection's handshake could be
    handled before the bytes."""
    deadline = time.monotonic() + WAIT_S
    while True:
        state, acked = tcp_state(s)
        if state != TCP_ESTABLISHED:
            return False
        if acked is None or acked >= n:
            return True
        check(time.monotonic() < deadline, f"the server's kernel took none of {n} bytes in {WAIT_S} s")
        time.sleep(0.001)


def closed_by_server(s):
    """Waits until the server closes s (True) or sends something (False)."""
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


def check(ok, what):
    if not ok:
        sys.exit(f"FAIL: {what}")


def main():
    listener, flood_from, bystander, bystander_from, token = sys.argv[1:6]
    per_address, count = int(sys.argv[6]), int(sys.argv[7])
    by = connect(bystander, bystander_from)
    flood = [connect(listener, flood_from) for _ in range(count)]
    for i, s in enumerate(flood[: count - per_address]):
        check(closed_by_server(s), f"flood connection {i} was answered instead of closed")
    check(request(by, token) == 200, f"the bystander from {bystander_from} was pushed out by a flood from {flood_from}")
    fresh = connect(listener, flood_from)
    check(request(fresh, token) == 200, "an authorized client from the flooding address was not served")
    check(closed_by_server(flood[count - per_address]), "the newcomer did not push out its address's oldest")
    for i in range(count - per_address + 1, count):
        check(request(flood[i]) == 401, f"flood connection {i}, within the share, was closed")
    redone = spare_speaking(listener, flood_from, token, per_address)
    print(f"  {count} from {flood_from}: {count - per_address} closed, {per_address} kept; "
          f"the bystander from {bystander_from} and a token holder served")
    print(f"redone tries: {redone}")


def spare_speaking(listener, source, token, per_address):
    """The speaking pool's check: the number of tries redone before one told."""
    for redone in range(TRIES):
        t0 = time.monotonic()
        pool = [connect(listener, source) for _ in range(per_address)]
        for s in pool:
            s.sendall(REQUEST_LINE.encode())
        if not all([wait_heard(s, len(REQUEST_LINE)) for s in pool]):
            # pushed out before its request line arrived: the address's
            # earlier connections were still listed (their closing not yet
            # handled); the property is about speaking ones, so try again
            for s in pool:
                s.close()
            continue
        # answered: the server took the newcomer, with the pool listed
        check(request(connect(listener, source), token) == 200, "a token holder beside a speaking pool")
        answers = [request(s, token, started=True) for s in pool]
        if time.monotonic() - t0 < SPEAKING_GRACE_S:
            check(answers == [200] * per_address, f"a pool's requests under way were pushed out: {answers}")
            return redone
    check(False, f"{TRIES} tries each pushed out before it spoke or over {SPEAKING_GRACE_S} s: nothing to tell")


main()
