"""Stand-in for `pasture hook serve` (copied behind a shebang by opencode_support.write_stub).

Speaks the runtime's JSON-lines protocol (pasture/runtime/serve.py), records every start and every
request into the case's log, and answers as the case's control file says, read again per request.

Control file ($STUB_CONTROL, JSON):
  log          the JSON-lines log this process appends to
  mode         how to answer every event (default "proceed"); modes: {event: mode} overrides
  reason       the reason of deny/ask answers
  await        the handshake's "await" list; await_next: an "await" list every reply then carries
  start        how a process starts: ok | slow | handshake-error | exit70 | protocol2 | silent-exit | hang |
               die-first-start (the first process exits 1 at its first request, later ones answer)
  delay        seconds, for mode "slow" and start "slow"
  barrier      mode "barrier": no answer until this many requests have arrived (15 s at most)
Requests are answered each on its own thread, so slow answers overlap.
"""

import fcntl
import json
import os
import signal
import sys
import threading
import time

CONTROL = os.environ["STUB_CONTROL"]
lock = threading.Lock()


def control():
    with open(CONTROL, encoding="utf-8") as fh:
        return json.load(fh)


def log(record):
    with open(control()["log"], "a", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        fh.write(json.dumps(record) + "\n")


def write(message):
    data = (message if isinstance(message, str) else json.dumps(message)) + "\n"
    with lock:
        sys.stdout.write(data)
        sys.stdout.flush()


ctl = control()
pid = os.getpid()
log(
    {
        "kind": "start",
        "pid": pid,
        "argv": sys.argv,
        "cwd": os.getcwd(),
        "time": time.time(),
        "sid": os.getsid(0),
        "pgid": os.getpgid(0),
        "parent_sid": os.getsid(os.getppid()),
    }
)
how = ctl.get("start", "ok")
first_start = not os.path.exists(CONTROL + ".started")
open(CONTROL + ".started", "a").close()
if how == "slow":
    time.sleep(ctl.get("delay", 0.3))
if how == "handshake-error":
    write(
        {
            "pasture": "hook-serve",
            "protocol": 1,
            "error": "pasture: cannot load the generated contract tables "
            "(ModuleNotFoundError: No module named 'pasture_contracts'); fix: STUB-FIX",
        }
    )
    sys.exit(70)
if how == "exit70":
    sys.stderr.write(
        "pasture: cannot import the runtime from /opt/gone (ModuleNotFoundError); fix: STUB-LAUNCHER-FIX\n"
    )
    sys.exit(70)
if how == "silent-exit":
    sys.exit(0)
if how == "hang":  # an old one-shot pasture: reads its input to the end, never says hello
    sys.stdin.read()
    sys.exit(0)
write(
    {
        "pasture": "hook-serve",
        "protocol": 2 if how == "protocol2" else 1,
        "harness": "opencode",
        "contract": "stub",
        "await": ctl.get("await", []),
    }
)

SIMPLE = {
    "proceed": json.dumps({"decision": "proceed"}) + "\n",
    "slow": json.dumps({"decision": "proceed"}) + "\n",
    "garbage": "this is not JSON",
    "two": json.dumps({"decision": "proceed"}) + "\n" + json.dumps({"decision": "proceed"}) + "\n",
    "array": json.dumps([{"decision": "proceed"}]),
    "noreason": json.dumps({"decision": "deny"}),
    "unknown": json.dumps({"decision": "allow"}),
    "empty": "",
}


received = 0


def answer(request, raw, started):
    ctl = control()
    event = request.get("event")
    mode = ctl.get("modes", {}).get(event, ctl.get("mode", "proceed"))
    if how == "die-first-start" and first_start:
        mode = "exit1"
    if mode == "slow":
        time.sleep(ctl.get("delay", 0.3))
    met = None
    if mode == "barrier":  # answer nothing until `barrier` requests are in (15 s at most)
        until = time.time() + 15
        while received < ctl["barrier"] and time.time() < until:
            time.sleep(0.01)
        met = received >= ctl["barrier"]
        mode = "proceed"
    log(
        {
            "kind": "request",
            "pid": pid,
            "line": raw,
            "request": request,
            "start": started,
            "end": time.time(),
            "met": met,
        }
    )
    rid = request.get("id")
    reply = {"id": rid, "exit": 0, "stdout": "", "stderr": ""}
    if mode in SIMPLE:
        reply["stdout"] = SIMPLE[mode]
    elif mode in ("deny", "ask"):
        reply["stdout"] = json.dumps({"decision": mode, "reason": ctl.get("reason", "")}) + "\n"
    elif mode == "raw":  # exactly the stdout the case gives (the steering answers)
        reply["stdout"] = ctl.get("stdout", "")
    elif mode == "noted":
        reply.update(stdout=SIMPLE["proceed"], stderr="pasture: NOTE-LINE: run pasture policy trust\n")
    elif mode == "crash":
        reply.update(exit=3, stderr="pasture: gate failed: stub crashed on purpose SECRET-STDERR\n")
    elif mode == "crash_why":  # the real runtime's failure answer: its one line on stdout too
        reply.update(
            exit=3,
            stdout=json.dumps({"failure": "gate failed on tool.execute.before:\n the gate\tsaid no  "}) + "\n",
            stderr="pasture: gate failed: stub crashed on purpose SECRET-STDERR\n",
        )
    elif mode == "refused":
        reply = {"id": rid, "error": "malformed request (stub)"}
    elif mode == "sleep":
        return
    elif mode == "flood":
        with lock:
            sys.stdout.write("x" * (5 * 1024 * 1024))
            sys.stdout.flush()
        return
    elif mode == "signal":
        os.kill(pid, signal.SIGTERM)
        return
    elif mode == "exit1":
        os._exit(1)
    if ctl.get("await_next") is not None:
        reply["await"] = ctl["await_next"]
    write(reply)


for raw in sys.stdin:
    started = time.time()
    try:
        request = json.loads(raw)
    except ValueError:
        log({"kind": "bad-line", "pid": pid, "line": raw[:200]})
        continue
    received += 1
    threading.Thread(target=answer, args=(request, raw, started)).start()
log({"kind": "eof", "pid": pid, "time": time.time()})
