#!/usr/bin/env python3
"""Load for the cluster's test and benchmark (a helper, not a test): submits
jobs to several daemons round robin and waits for them, over unix sockets.

  cluster_load.py submit SOCKS N PARTS WITNESS PREFIX OUT.json [--inline-every K] [--priority P]
      N jobs of PARTS partitions (the witness by path; every K-th job inline),
      request ids PREFIX-<i>, sent to SOCKS (comma-separated unix socket paths)
      in turn; writes {request_id: job_id} to OUT.json
  cluster_load.py await SOCKS IDS.json DEADLINE_S [--out DIR]
      waits until every job of IDS.json has ended, asking SOCKS in turn (a
      daemon that does not answer is skipped); prints {state: count} as JSON
      and exits 1 unless all are done before the deadline; with --out, each
      done job's proofs as DIR/<job>_<i>.proof.json and .public.json, as
      `cuzk groth16 verify` reads them
  cluster_load.py get SOCK PATH      one GET: prints the status, then the body
  cluster_load.py post SOCK PATH BODY"""
import base64
import http.client
import json
import socket
import sys
import time


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=60)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(60)
        self.sock.connect(self.path)


def call(sock, method, path, body=None):
    c = UnixConnection(sock)
    try:
        c.request(method, path, body=json.dumps(body) if body is not None else None,
                  headers={"Content-Type": "application/json"})
        r = c.getresponse()
        return r.status, json.loads(r.read() or b"null")
    finally:
        c.close()


def submit(socks, n, parts, witness, prefix, out, inline_every=0, priority="normal"):
    blob = base64.b64encode(open(witness, "rb").read()).decode()
    ids = {}
    for i in range(n):
        inline = inline_every and i % inline_every == 0
        p = [{"witness_b64": blob} if inline else {"witness": witness} for _ in range(parts)]
        rid = "%s-%d" % (prefix, i)
        status, d = call(socks[i % len(socks)], "POST", "/v1/jobs",
                         {"circuit": "c", "request_id": rid, "priority": priority, "partitions": p})
        if status != 202:
            sys.exit("submit %s: HTTP %d %s" % (rid, status, d))
        ids[rid] = d["job_id"]
    json.dump(ids, open(out, "w"))


def write_proofs(out, job, d):
    for i, (proof, public) in enumerate(zip(d["proofs"], d["public_signals"])):
        for kind, value in (("proof", proof), ("public", public)):
            json.dump(value, open("%s/%d_%d.%s.json" % (out, job, i, kind), "w"))


def await_all(socks, ids, deadline_s, out=None):
    end = time.time() + deadline_s
    left = dict(ids)
    states = {}
    k = 0
    while left and time.time() < end:
        rid, job = next(iter(left.items()))
        sock = socks[k % len(socks)]
        k += 1
        try:
            status, d = call(sock, "GET", "/v1/jobs/%d?wait_ms=2000" % job)
        except OSError:
            continue  # a daemon down: ask the next
        if status == 200 and d["state"] in ("done", "failed", "cancelled"):
            states[d["state"]] = states.get(d["state"], 0) + 1
            if d["state"] == "done" and len(d["proofs"]) != d["partitions"]:
                sys.exit("job %d done with %d proofs of %d" % (job, len(d["proofs"]), d["partitions"]))
            if d["state"] == "done" and out:
                write_proofs(out, job, d)
            del left[rid]
    states["unfinished"] = len(left)
    print(json.dumps(states))
    sys.exit(0 if states.get("done", 0) == len(ids) else 1)


def main():
    a = sys.argv[1:]
    if a[0] == "submit":
        opts = dict(zip(a[7::2], a[8::2]))
        submit(a[1].split(","), int(a[2]), int(a[3]), a[4], a[5], a[6], int(opts.get("--inline-every", 0)),
               opts.get("--priority", "normal"))
    elif a[0] == "await":
        opts = dict(zip(a[4::2], a[5::2]))
        await_all(a[1].split(","), json.load(open(a[2])), float(a[3]), opts.get("--out"))
    elif a[0] in ("get", "post"):
        status, d = call(a[1], a[0].upper(), a[2], json.loads(a[3]) if a[0] == "post" else None)
        print(status)
        print(json.dumps(d))


if __name__ == "__main__":
    main()
