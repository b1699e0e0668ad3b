#!/usr/bin/env python3
"""The load of tests/cli/load.sh, from one process: a warm-up round, then
N jobs submitted by several threads at once (over the unix socket and over
TCP with the token; priorities, request ids some submitted several times at
once, inline witnesses, jobs of 2-3 partitions) while idle TCP connections
without a token press on the listener, an authorized client keeps asking
for the status, and a cancel storm hits the jobs right after their submit,
while they run and after they are done. Then every answer is checked:
nothing lost, ids unique, request ids idempotent, the cancels' answers
consistent with the jobs' ends, status and metrics equal to the counts, the
daemon's RSS within the bound. The done jobs' proofs are written to
OUT/proofs (ID_P.proof.json, ID_P.public.json) for the shell to verify.
Threads over one process rather than 1,000 client processes, so that the
daemon, not the harness, is what the load measures.

  load_driver.py --unix PATH --tcp HOST:PORT --token-file F --pid PID
                 --witness W --jobs N --warmup N --out DIR
Prints what it measured; on a broken promise prints FAIL: ... and exits 1."""
import argparse
import base64
import http.client
import json
import os
import random
import re
import selectors
import socket
import sys
import threading
import time

STATES = ("queued", "running", "done", "failed", "cancelled")
TERMINAL = ("done", "failed", "cancelled")
# One request's deadline: generous, nothing here measures speed.
REQUEST_TIMEOUT_S = 120
DEADLINE_S = 600


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("cuzk", timeout=timeout)
        self.unix_path = path

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        s.connect(self.unix_path)
        self.sock = s


class Api:
    """A keep-alive HTTP client of one address (unix:PATH or tcp:HOST:PORT)."""

    def __init__(self, addr, token=None):
        self.addr, self.token = addr, token
        self.conn = self._connect()

    def _connect(self):
        if self.addr.startswith("unix:"):
            return UnixConnection(self.addr[5:], REQUEST_TIMEOUT_S)
        host, port = self.addr[4:].rsplit(":", 1)
        return http.client.HTTPConnection(host, int(port), timeout=REQUEST_TIMEOUT_S)

    def call(self, method, path, body=None, retry=True):
        """(status, JSON or text); a request the server may have seen is
        retried only when retry says repeating it is harmless."""
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        data = json.dumps(body).encode() if body is not None else None
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                raw = r.read()
                break
            except (http.client.HTTPException, ConnectionError, socket.timeout) as e:
                self.conn.close()
                self.conn = self._connect()
                if attempt or not retry:
                    raise Fail(f"{method} {path} on {self.addr}: no answer ({e!r})")
        if r.getheader("Content-Type", "").startswith("application/json"):
            return r.status, json.loads(raw)
        return r.status, raw.decode()


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M).group(1))


def cpu_s(pid):
    """The CPU seconds (user and system) process pid has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class IdlePressure(threading.Thread):
    """n TCP connections that never send a byte, held open from start to
    stop: one the server closes is opened again (after a pause of a second, so
    that the churn does not take a core from the daemon). On loopback they
    come from ten addresses (127.0.0.2 to .11, none the authorized clients'),
    so that the total bound, not only each address's share, pushes them out."""

    def __init__(self, host, port, n):
        super().__init__(daemon=True)
        self.host, self.port, self.n = host, port, n
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.closed_by_server = 0
        self.error = None
        self.opened = 0

    def _open(self, sel):
        source = (f"127.0.0.{2 + self.opened % 10}", 0) if self.host == "127.0.0.1" else None
        self.opened += 1
        s = socket.create_connection((self.host, self.port), timeout=30, source_address=source)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)

    def run(self):
        try:
            sel = selectors.DefaultSelector()
            for _ in range(self.n):
                self._open(sel)
            self.ready.set()
            reopen_at = []
            while not self.stop.is_set():
                for key, _ in sel.select(timeout=0.1):
                    try:
                        data = key.fileobj.recv(4096)
                    except (ConnectionError, BlockingIOError):
                        data = b""
                    if data:
                        continue  # a 408 or the like before the close: keep reading
                    sel.unregister(key.fileobj)
                    key.fileobj.close()
                    self.closed_by_server += 1
                    reopen_at.append(time.monotonic() + 1.0)
                now = time.monotonic()
                while reopen_at and reopen_at[0] <= now:
                    reopen_at.pop(0)
                    self._open(sel)
            for key in list(sel.get_map().values()):
                key.fileobj.close()
        except Exception as e:  # reported by the main thread
            self.error = e
            self.ready.set()


class Load:
    def __init__(self, a, name, n_jobs, storm, seed):
        self.a, self.name = a, name
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.errors = []
        self.specs = self._make_specs(n_jobs)
        self.submitted = {}     # spec index -> job id (of its first copy)
        self.copy_ids = {}      # spec index -> every id its copies got
        self.order = []         # job ids in the order their submits returned
        self.priority_of = {}   # job id -> its priority
        self.results = {}       # job id -> its final JSON
        self.cancels = []       # (job id, kind, the answer's state)
        self.storm = storm
        self.submits_done = threading.Event()

    def _make_specs(self, n):
        """The jobs: ~5 % of 2-3 partitions, 3/4 with a priority, 30 % with
        a request id (1 in 5 of those submitted 2-4 times at once), 5 %
        inline, 10 % cancelled right after the submit."""
        rng, specs = self.rng, []
        for i in range(n):
            s = {"parts": rng.choice((2, 3)) if rng.random() < 0.05 else 1,
                 "priority": rng.choice(("critical", "high", "normal", "low", None)),
                 "request_id": f"{self.name}-{i}" if rng.random() < 0.3 else None,
                 "inline": rng.random() < 0.05}
            s["copies"] = rng.choice((2, 3, 4)) if s["request_id"] and rng.random() < 0.2 else 1
            s["cancel_now"] = s["copies"] == 1 and rng.random() < 0.1
            specs.append(s)
        return specs

    def body(self, s, witness=None):
        w = witness or self.a.witness
        part = {"witness_b64": self.a.witness_b64} if s["inline"] else {"witness": w}
        b = {"circuit": "c", "partitions": [part] * s["parts"]}
        if s["priority"]:
            b["priority"] = s["priority"]
        if s["request_id"]:
            b["request_id"] = s["request_id"]
        return b

    def guard(self, fn, *args):
        try:
            fn(*args)
        except Exception as e:
            with self.lock:
                self.errors.append(f"{fn.__name__}: {e}")

    # ---- the threads ----

    def submitter(self, api, work):
        while True:
            with self.lock:
                if not work:
                    return
                i, copy = work.pop(0)
            s = self.specs[i]
            status, r = api.call("POST", "/v1/jobs", self.body(s), retry=bool(s["request_id"]))
            check(status == 202 and isinstance(r, dict) and r.get("state") == "queued",
                  f"submit of job {i}: HTTP {status} {r}")
            jid = r["job_id"]
            with self.lock:
                self.copy_ids.setdefault(i, []).append(jid)
                if i not in self.submitted:
                    self.submitted[i] = jid
                    self.priority_of[jid] = s["priority"]
                    self.order.append(jid)
            if s["cancel_now"]:
                self.cancel(api, jid, "after submit")

    def cancel(self, api, jid, kind):
        status, r = api.call("DELETE", f"/v1/jobs/{jid}")
        check(status == 200 and r.get("job_id") == jid and r.get("state") in STATES,
              f"cancel of {jid} ({kind}): HTTP {status} {r}")
        with self.lock:
            self.cancels.append((jid, kind, r["state"]))

    def canceller(self, api):
        """Alternately a random job, and one seen running: the running jobs
        are among the first not yet ended in the dispatch order (priority,
        then submit)."""
        hunted = sent = 0
        ended = set()  # seen done here, before an awaiter records them
        rank = {"critical": 0, "high": 1, None: 2, "normal": 2, "low": 3}
        while sent < self.storm["total"] and not self.all_ended():
            with self.lock:
                ids = [j for j in self.order if j not in self.results and j not in ended]
            if not ids:
                if self.submits_done.is_set():
                    return
                time.sleep(0.005)
                continue
            time.sleep(self.rng.uniform(0, 0.01))  # paces the storm; decides nothing
            if hunted < self.storm["hunt"] and self.rng.random() < 0.5:
                for jid in sorted(ids, key=lambda j: rank[self.priority_of[j]])[:50]:
                    status, r = api.call("GET", f"/v1/jobs/{jid}?wait_ms=0")
                    check(status == 200, f"GET job {jid}: HTTP {status} {r}")
                    if r["state"] in TERMINAL:
                        ended.add(jid)
                    elif r["state"] == "running":
                        hunted += 1
                        sent += 1
                        self.cancel(api, jid, "while running")
                        break
            else:
                sent += 1
                self.cancel(api, self.rng.choice(ids), "at random")

    def awaiter(self, api, slot, n_slots):
        """Waits for every n_slots-th job (by submit order) to end."""
        k = slot
        deadline = time.monotonic() + DEADLINE_S
        while True:
            with self.lock:
                jid = self.order[k] if k < len(self.order) else None
            if jid is None:
                if self.submits_done.is_set() and k >= len(self.order):
                    return
                time.sleep(0.005)
                continue
            idle_seen = 0
            while True:
                check(time.monotonic() < deadline, f"job {jid} did not end within {DEADLINE_S} s")
                status, r = api.call("GET", f"/v1/jobs/{jid}?wait_ms=5000")
                check(status == 200, f"GET job {jid}: HTTP {status} {r} (lost?)")
                if r["state"] in TERMINAL:
                    break
                # a job that waits while the daemon has nothing queued or
                # running, three times 5 s apart, is lost (a state, not a
                # time: the deadline above is the backstop; three, as a
                # partition being finalized is in none of those queues)
                idle_seen = idle_seen + 1 if self.pipeline_empty(api) else 0
                check(idle_seen < 3, f"job {jid} is {r['state']} but the daemon has nothing queued or running: lost")
            with self.lock:
                self.results[jid] = r
            k += n_slots

    @staticmethod
    def pipeline_empty(api):
        status, text = api.call("GET", "/metrics")
        m = parse_metrics(text)
        return all(m[f'cuzk_queue_depth{{stage="{st}"}}'] == 0 for st in ("queued", "synthesizing", "gpu_queued", "on_gpu"))

    def all_ended(self):
        with self.lock:
            return self.submits_done.is_set() and len(self.results) == len(self.order)

    def run(self, n_submitters=8, n_awaiters=4):
        work = []
        for i, s in enumerate(self.specs):
            work.extend((i, c) for c in range(s["copies"]))  # copies side by side: submitted at once
        apis = lambda k: [Api(self.a.unix) if n % 2 else Api(self.a.tcp, self.a.token) for n in range(k)]
        subs = [threading.Thread(target=self.guard, args=(self.submitter, api, work)) for api in apis(n_submitters)]
        waits = [threading.Thread(target=self.guard, args=(self.awaiter, api, n, n_awaiters))
                 for n, api in enumerate(apis(n_awaiters))]
        storm = threading.Thread(target=self.guard, args=(self.canceller, Api(self.a.unix)))
        t0 = time.monotonic()
        for t in subs + waits + [storm]:
            t.start()
        for t in subs:
            t.join()
        self.t_submitted = time.monotonic() - t0
        self.submits_done.set()
        for t in waits + [storm]:
            t.join()
        self.wall = time.monotonic() - t0
        if self.errors:
            raise Fail("; ".join(self.errors[:5]))


class Monitor(threading.Thread):
    """An authorized client over TCP asking for the status throughout, and
    the daemon's RSS sampled at each answer."""

    def __init__(self, a):
        super().__init__(daemon=True)
        self.api = Api(a.tcp, a.token)
        self.pid = a.pid
        self.stop = threading.Event()
        self.answers, self.failures, self.rss_peak = 0, [], 0

    def run(self):
        while not self.stop.wait(0.1):  # a pace, not a deadline
            try:
                status, r = self.api.call("GET", "/v1/status")
                if status != 200:
                    self.failures.append(f"HTTP {status} {r}")
                self.answers += 1
                self.rss_peak = max(self.rss_peak, rss_kib(self.pid))
            except Exception as e:
                self.failures.append(repr(e))


def under_pressure(a, fn):
    """Runs fn with the idle connections and the monitor going; returns
    what they saw."""
    host, port = a.tcp[4:].rsplit(":", 1)
    idle = IdlePressure(host, int(port), a.idle)
    idle.start()
    idle.ready.wait(60)
    check(idle.ready.is_set() and not idle.error, f"the idle connections were not made: {idle.error}")
    mon = Monitor(a)
    mon.start()
    try:
        fn()
    finally:
        mon.stop.set()
        idle.stop.set()
        mon.join()
        idle.join()
    check(not idle.error, f"idle connections: {idle.error!r}")
    check(not mon.failures, f"the authorized client was refused under idle pressure: {mon.failures[:3]}")
    check(mon.answers > 0, "the authorized client got no answer")
    check(idle.closed_by_server > 0, f"{a.idle} idle connections without a token and none was closed by the server")
    return idle, mon


# ---- the checks after a round ----

def check_round(load):
    ids = [load.submitted[i] for i in range(len(load.specs))]
    check(len(set(ids)) == len(ids), f"{len(ids) - len(set(ids))} job ids given to two jobs")
    for i, s in enumerate(load.specs):
        got = load.copy_ids[i]
        check(len(got) == s["copies"] and len(set(got)) == 1,
              f"request id {s['request_id']} submitted {s['copies']} times at once gave jobs {got}")
    check(set(load.results) == set(ids), "a job's end was never seen")
    by_state = {st: 0 for st in TERMINAL}
    for i, s in enumerate(load.specs):
        r = load.results[load.submitted[i]]
        by_state[r["state"]] += 1
        if r["state"] == "done":
            check(r["partitions_done"] == s["parts"] and r["verified"] is True and len(r["proofs"]) == s["parts"]
                  and len(r["public_signals"]) == s["parts"], f"done job {r['job_id']} is incomplete: {r}")
        elif r["state"] == "failed":  # nothing here should fail: every witness fits the key
            check(False, f"job {r['job_id']} failed: {r.get('error')}")
        else:
            check(r["partitions_done"] <= s["parts"], f"cancelled job {r['job_id']}: {r}")
    for jid, kind, answer in load.cancels:
        end = load.results[jid]["state"]
        # a cancel answered "done" (or "failed") found the job ended; any
        # other answer must end the job cancelled
        want = answer if answer in ("done", "failed") else "cancelled"
        check(end == want, f"job {jid} cancelled {kind}: the cancel answered {answer}, the job ended {end}")
    proofs = [json.dumps(p["pi_a"]) for r in load.results.values() if r["state"] == "done" for p in r["proofs"]]
    check(len(set(proofs)) == len(proofs), "two partitions got the same proof")
    return by_state


def write_proofs(load, out):
    os.makedirs(out, exist_ok=True)
    n = 0
    with open(os.path.join(out, "list"), "a") as lst:
        for jid, r in load.results.items():
            if r["state"] != "done":
                continue
            for p, (proof, public) in enumerate(zip(r["proofs"], r["public_signals"])):
                base = os.path.join(out, f"{jid}_{p}")
                json.dump(proof, open(base + ".proof.json", "w"))
                json.dump(public, open(base + ".public.json", "w"))
                lst.write(base + "\n")
                n += 1
    return n


def after_done(a, load, api):
    """Cancels of done jobs change nothing; request ids still give their
    job; a request id with another payload is a 409."""
    done = [jid for jid, r in load.results.items() if r["state"] == "done"]
    for jid in load.rng.sample(done, min(30, len(done))):
        load.cancel(api, jid, "after done")
        status, r = api.call("GET", f"/v1/jobs/{jid}")
        check(status == 200 and r["state"] == "done" and r["proofs"] == load.results[jid]["proofs"],
              f"job {jid} changed after a cancel of the done job: {r}")
    with_rid = [i for i, s in enumerate(load.specs) if s["request_id"]]
    for i in load.rng.sample(with_rid, min(20, len(with_rid))):
        status, r = api.call("POST", "/v1/jobs", load.body(load.specs[i]))
        check(status == 202 and r["job_id"] == load.submitted[i],
              f"request id {load.specs[i]['request_id']} again gave {status} {r}, not job {load.submitted[i]}")
    i = with_rid[0]
    other = dict(load.specs[i], parts=load.specs[i]["parts"] + 1)
    status, r = api.call("POST", "/v1/jobs", load.body(other))
    check(status == 409 and str(load.submitted[i]) in r["error"], f"a reused request id: {status} {r}")


def parse_metrics(text):
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def check_counts(api, rounds):
    """status and metrics against what the rounds saw."""
    want = {st: sum(r[1][st] for r in rounds) for st in TERMINAL}
    proved = sum(res["partitions_done"] for load, _ in rounds for res in load.results.values())
    status, st = api.call("GET", "/v1/status")
    check(status == 200, f"status: {status}")
    jobs = st["jobs"]
    check(jobs["active"] == 0 and all(jobs[s] == want[s] for s in TERMINAL),
          f"status jobs {jobs}, the clients saw {want}")
    check(st["partitions"]["proved"] == proved, f"status: {st['partitions']['proved']} partitions proved, the jobs "
          f"say {proved}")
    status, text = api.call("GET", "/metrics")
    m = parse_metrics(text)
    for s in TERMINAL:
        got = m[f'cuzk_proofs_total{{outcome="{s}"}}']
        check(got == want[s], f"metrics: {got:g} jobs {s}, the clients saw {want[s]}")
    check(m["cuzk_jobs_active"] == 0, "metrics: jobs active")
    check(m["cuzk_partitions_proved_total"] == proved, "metrics: partitions proved")
    check(m['cuzk_stage_duration_seconds_count{stage="total"}'] == proved, "metrics: the histogram's count")
    for stage in ("queued", "synthesizing", "gpu_queued", "on_gpu"):
        check(m[f'cuzk_queue_depth{{stage="{stage}"}}'] == 0, f"metrics: {stage} is not empty after the load")
    check(st["http_responses"]["5xx"] == 0, f"{st['http_responses']['5xx']} answers of 5xx")
    return want, proved


def main():
    ap = argparse.ArgumentParser()
    for k in ("unix", "tcp", "token-file", "witness", "out"):
        ap.add_argument("--" + k, required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--warmup", type=int, default=150)
    ap.add_argument("--idle", type=int, default=40)
    ap.add_argument("--rss-slack-mib", type=float, default=4)
    ap.add_argument("--rss-per-job-kib", type=float, default=4)
    ap.add_argument("--no-rss-bound", action="store_true", help="a sanitizer build: its quarantine grows")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("CUZK_LOAD_SEED", "17")))
    a = ap.parse_args()
    a.token = open(a.token_file).read().strip()
    a.witness_b64 = base64.b64encode(open(a.witness, "rb").read()).decode()
    print(f"seed {a.seed} (CUZK_LOAD_SEED repeats a run)")
    try:
        rounds = []
        rss = [rss_kib(a.pid)]
        for name, n, storm in (("warmup", a.warmup, {"total": a.warmup // 5, "hunt": 5}),
                               ("load", a.jobs, {"total": a.jobs // 5, "hunt": 40})):
            load = Load(a, name, n, storm, a.seed + len(rounds))
            cpu0 = (cpu_s(a.pid), time.process_time())
            idle, mon = under_pressure(a, load.run)
            cpu = (cpu_s(a.pid) - cpu0[0], time.process_time() - cpu0[1])
            by_state = check_round(load)
            api = Api(a.unix)
            after_done(a, load, api)
            rounds.append((load, by_state))
            rss.append(rss_kib(a.pid))
            kinds = {}
            for _, kind, answer in load.cancels:
                kinds.setdefault(kind, {}).setdefault(answer, 0)
                kinds[kind][answer] += 1
            n_sub = sum(len(v) for v in load.copy_ids.values())
            print(f"{name}: {n} jobs ({n_sub} submits) in {load.wall:.1f} s (all submitted after "
                  f"{load.t_submitted:.1f} s): {by_state}; cancels {kinds}")
            print(f"  {a.idle} idle connections without a token: {idle.closed_by_server} closed by the daemon and "
                  f"opened again; an authorized client got {mon.answers} status answers, none refused")
            print(f"  CPU: the daemon {cpu[0]:.1f} s, this driver (submits, waits, cancels, idle sockets, "
                  f"status) {cpu[1]:.1f} s")
            print(f"  RSS {rss[-1]} KiB (peak {mon.rss_peak} KiB sampled during the round)")
            print(f"  proofs written: {write_proofs(load, a.out)}")
            if name == "load":
                running = kinds.get("while running", {}).get("running", 0) + kinds.get("at random", {}).get("running", 0)
                check(running > 0, "the storm never cancelled a running job")
        every = [jid for load, _ in rounds for jid in load.submitted.values()]
        check(len(set(every)) == len(every), "a job id of the warm-up came again in the load")
        want, proved = check_counts(Api(a.unix), rounds)
        print(f"status and metrics agree: {want}, {proved} partitions proved")
        # the results kept (results_max is above both rounds) grow with the
        # jobs: about 3 KiB each (job, partitions, proofs); what is beyond
        # them and the allocator's slack is a leak
        bound = rss[1] + a.rss_slack_mib * 1024 + a.rss_per_job_kib * a.jobs
        print(f"RSS: at start {rss[0]} KiB, after the warm-up {rss[1]} KiB, after the load {rss[2]} KiB: "
              f"+{(rss[2] - rss[1]) / a.jobs:.2f} KiB a job (bound {bound:.0f} KiB: +{a.rss_slack_mib:g} MiB "
              f"+ {a.rss_per_job_kib:g} KiB for each job's result kept{'; not applied' if a.no_rss_bound else ''})")
        check(a.no_rss_bound or rss[2] <= bound, f"the daemon's RSS grew from {rss[1]} to {rss[2]} KiB over the load")
    except Fail as e:
        print(f"FAIL: {e}")
        sys.exit(1)


main()
