"""Run one real host headless, offline, against a scripted fake model.

A run has two halves:

1. **Here** (:class:`HostRun`): make the run folder (``project/``, ``home/``, ``tmp/``, ...), let the
   caller write hooks or plugins into it, then start step 2 under the strongest isolation
   available (:func:`pasture.hostenv.netns.isolation_support`, normally
   ``unshare --net --pid --fork --kill-child --mount-proc``) and wait for it.
2. **Inside the namespace** (``python -m pasture.hostenv.runner --inside spec.json``): bring ``lo``
   up, start the fake model on 127.0.0.1 port 0, let the host's launcher write its config with
   that address, run the host under ``timeout -k 5 <timeout>`` with stdin from /dev/null and a
   scrubbed environment, stop the fake, write ``result.json``.

The fake and the host must share a namespace (each namespace has its own loopback), which is why
the whole second half runs in there.

Host environment: only an allowlist of the caller's variables survives (``PATH``, locale, ``TZ``,
``USER``/``LOGNAME``/``SHELL``, ``PYENV_*``); ``HOME``, ``TMPDIR`` and ``XDG_*`` point into the run
folder; proxy and credential variables are never passed; then the launcher's variables
(``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``, the fake key, ...) and the caller's ``extra_env``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from pasture.hostenv.fake_models import FakeModelServer, Script
from pasture.hostenv.netns import Isolation, bring_loopback_up, isolation_support, network_interfaces, python_env
from pasture.hostenv.npm_tools import host_binary
from pasture.hosts import LAUNCHERS, RunContext, RunLayout, launcher_for

__all__ = [
    "DEFAULT_PROMPT",
    "CLEARED_ENV",
    "HostRun",
    "HostRunResult",
    "base_host_env",
    "prepare_run",
    "run_host",
]

DEFAULT_PROMPT = "Create the pasture probe file, then report."

#: Variables a host never gets from the caller (the allowlist already drops them; listed so the
#: intent is explicit and so ``extra_env`` cannot smuggle one in by accident): the shared ones here, each
#: host's own credentials from its launcher (``cleared_env``).
CLEARED_ENV = frozenset(name for launcher in LAUNCHERS.values() for name in launcher.cleared_env) | frozenset(
    {
        "http_proxy",
        "https_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "all_proxy",
        "ALL_PROXY",
        "no_proxy",
        "NO_PROXY",
        "ftp_proxy",
        "FTP_PROXY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_ORG_ID",
        "OPENROUTER_API_KEY",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "GOOGLE_API_KEY",
        "NPM_TOKEN",
    }
)
_PASSTHROUGH = ("PATH", "LANG", "LANGUAGE", "TZ", "USER", "LOGNAME", "SHELL", "PYENV_ROOT", "PYENV_VERSION")


def base_host_env(layout: RunLayout, source: dict[str, str] | None = None) -> dict[str, str]:
    """The scrubbed base environment every host starts from."""
    source = dict(os.environ if source is None else source)
    env = {k: v for k, v in source.items() if k in _PASSTHROUGH or k.startswith("LC_")}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.setdefault("LANG", "C.UTF-8")
    env["TERM"] = "dumb"
    env["NO_COLOR"] = "1"
    env.update(layout.isolated_env())
    return env


@dataclass
class HostRunResult:
    """What one host run produced."""

    host: str
    exit_code: int
    stdout: str
    stderr: str
    requests: list[dict[str, Any]]  # the fake's request log, one dict per request
    layout: RunLayout
    isolation: str
    wall_time: float  # seconds, host process only
    timed_out: bool
    argv: list[str]
    env: dict[str, str]
    fake_stop_reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def run_dir(self) -> Path:
        return self.layout.root

    @property
    def project(self) -> Path:
        return self.layout.project

    @property
    def model_requests(self) -> list[dict[str, Any]]:
        """Requests that asked the model for an answer (turns, finals and side queries)."""
        return [r for r in self.requests if r.get("reply", {}).get("kind") in ("turn", "final", "side")]

    def describe(self) -> str:
        """A multi-line summary for assertion messages."""
        reqs = "\n".join(
            f"  #{r['seq']} {r['method']} {r['path']} -> {r.get('reply', {}).get('status')} "
            f"{r.get('reply', {}).get('kind')} turn={r.get('reply', {}).get('turn')}"
            for r in self.requests
        )
        return (
            f"{self.host}: exit {self.exit_code}{' (TIMED OUT)' if self.timed_out else ''} in "
            f"{self.wall_time:.1f}s, isolation {self.isolation}, run dir {self.run_dir}\n"
            f"argv: {self.argv}\nrequests:\n{reqs or '  (none)'}\n"
            f"stdout (tail):\n{self.stdout[-3000:]}\nstderr (tail):\n{self.stderr[-3000:]}"
        )


class HostRun:
    """A prepared run folder for one host; write hooks into it, then :meth:`execute`.

    ::

        run = prepare_run("claude-code", bin_dir, tmp_path)
        (run.project / ".claude").mkdir()
        (run.project / ".claude" / "settings.json").write_text(...)
        result = run.execute(Script.shell_then_reply("echo hi > probe.txt"))
    """

    def __init__(
        self,
        host: str,
        bin_dir: str | os.PathLike[str],
        root: str | os.PathLike[str] | None = None,
        *,
        git_init: bool = True,
    ) -> None:
        self.launcher = launcher_for(host)
        self.host = host
        # bin_dir is a node_modules/.bin-style folder, or the host's binary itself (any name).
        self.binary = Path(bin_dir).absolute() if Path(bin_dir).is_file() else host_binary(host, bin_dir)
        if root is None:
            root = tempfile.mkdtemp(prefix=f"pasture-{host}-")
        self.layout = RunLayout.at(root).create(self.launcher.home_folders)
        if git_init:
            subprocess.run(
                ["git", "init", "-q", str(self.layout.project)],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env={**base_host_env(self.layout), "GIT_CONFIG_NOSYSTEM": "1"},
            )

    @property
    def project(self) -> Path:
        return self.layout.project

    @property
    def home(self) -> Path:
        return self.layout.home

    @property
    def root(self) -> Path:
        return self.layout.root

    def execute(
        self,
        script: Script,
        prompt: str = DEFAULT_PROMPT,
        *,
        timeout: float = 120.0,
        options: dict[str, Any] | None = None,
        extra_env: dict[str, str] | None = None,
        isolation: str | None = None,
        max_requests: int = 64,
        fake_deadline: float | None = None,
        cwd: str | None = None,
        loggers: dict[str, dict[str, Any]] | None = None,
    ) -> HostRunResult:
        """Run the host once. ``options`` are the launcher's knobs (see its ``default_options``).

        ``cwd``: a folder inside the project (relative) to start the host in, as a user who ran
        ``cd src`` first would; default the project itself. ``loggers``: extra logging HTTP servers
        started inside the namespace beside the fake model, ``{name: {"port": N, "default": reply}}``
        (a :class:`pasture.hostenv.fake_models.ChatReply` dict answered to every request; each
        request is logged to ``<run>/logger-<name>.jsonl``). The port is fixed because whatever is
        to reach a logger (a policy file, say) is written before the run starts; in a fresh network
        namespace every port is free.
        """
        opts = self.launcher.options(options)
        iso: Isolation = isolation_support(isolation)
        if not iso.private_network:
            warnings.warn(
                f"hostenv: running {self.host} without a network namespace: {iso.note}", RuntimeWarning, stacklevel=2
            )
        bad = CLEARED_ENV.intersection(extra_env or {})
        if bad:
            raise ValueError(f"extra_env may not set {sorted(bad)}")
        spec = {
            "host": self.host,
            "binary": str(self.binary),
            "layout": self.layout.to_dict(),
            "script": script.to_dict(),
            "prompt": prompt,
            "options": opts,
            "extra_env": dict(extra_env or {}),
            "timeout": float(timeout),
            "max_requests": int(max_requests),
            "fake_deadline": float(fake_deadline if fake_deadline is not None else timeout + 30),
            "isolation": iso.mode,
            "cwd": cwd,
            "loggers": dict(loggers or {}),
            "caller_env": {k: v for k, v in os.environ.items() if k in _PASSTHROUGH or k.startswith("LC_")},
        }
        spec_path = self.layout.root / "run-spec.json"
        spec_path.write_text(json.dumps(spec, indent=2))
        result_path = self.layout.root / "result.json"
        result_path.unlink(missing_ok=True)
        argv = [*iso.wrapper, sys.executable, "-m", "pasture.hostenv.runner", "--inside", str(spec_path)]
        log_path = self.layout.root / "runner.log"
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=python_env(),
                start_new_session=True,
            )
            try:
                proc.wait(timeout=timeout + 60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if not result_path.exists():
            raise RuntimeError(
                f"host run produced no result (runner exit {proc.returncode}); "
                f"runner log:\n{log_path.read_text(errors='replace')[-4000:]}"
            )
        out = json.loads(result_path.read_text())
        if "error" in out:
            raise RuntimeError(
                f"host run failed inside the namespace: {out['error']}\n{log_path.read_text(errors='replace')[-4000:]}"
            )
        return HostRunResult(
            host=self.host,
            exit_code=out["exit_code"],
            stdout=(self.layout.root / "host-stdout.txt").read_text(errors="replace"),
            stderr=(self.layout.root / "host-stderr.txt").read_text(errors="replace"),
            requests=_read_jsonl(self.layout.root / "fake-requests.jsonl"),
            layout=self.layout,
            isolation=out["isolation"],
            wall_time=out["wall_time"],
            timed_out=out["timed_out"],
            argv=out["argv"],
            env=out["env"],
            fake_stop_reason=out.get("fake_stop_reason"),
            extra={k: v for k, v in out.items() if k.startswith("interfaces")},
        )


def prepare_run(
    host: str, bin_dir: str | os.PathLike[str], root: str | os.PathLike[str] | None = None, *, git_init: bool = True
) -> HostRun:
    """Make a run folder for ``host`` (``claude-code``, ``codex`` or ``opencode``).

    ``bin_dir`` is a folder holding the host's binary under its usual name, or the binary itself.
    """
    return HostRun(host, bin_dir, root, git_init=git_init)


def run_host(
    host: str,
    script: Script,
    *,
    bin_dir: str | os.PathLike[str],
    root: str | os.PathLike[str] | None = None,
    setup: Callable[[HostRun], None] | None = None,
    **execute_kwargs: Any,
) -> HostRunResult:
    """One-call form: prepare, let ``setup(run)`` write hooks, execute."""
    run = prepare_run(host, bin_dir, root)
    if setup is not None:
        setup(run)
    return run.execute(script, **execute_kwargs)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# --- the half that runs inside the namespace ----------------------------------------------------


def _inside(spec_path: Path) -> int:
    spec = json.loads(spec_path.read_text())
    layout = RunLayout.from_dict(spec["layout"])
    result_path = layout.root / "result.json"
    result: dict[str, Any] = {"isolation": spec["isolation"]}
    fake: FakeModelServer | None = None
    loggers: list[Any] = []
    try:
        if spec["isolation"] != "none":
            bring_loopback_up()
            interfaces = network_interfaces()
            result["interfaces"] = interfaces
            if interfaces != ["lo"]:
                raise RuntimeError(f"expected a namespace with only lo, found {interfaces}")
        launcher = launcher_for(spec["host"])
        fake = FakeModelServer(
            launcher.wire_protocol,
            Script.from_dict(spec["script"]),
            log_path=layout.root / "fake-requests.jsonl",
            deadline=spec["fake_deadline"],
            max_requests=spec["max_requests"],
        ).start()
        if spec.get("loggers"):
            from pasture.hostenv.fake_models import ChatReply, FakeChatServer

            for name, logger in spec["loggers"].items():
                log = layout.root / f"logger-{name}.jsonl"
                log.touch()
                loggers.append(
                    FakeChatServer(
                        [],
                        default=ChatReply.from_dict(logger.get("default", {"content": "ok"})),
                        log_path=str(log),
                        deadline=spec["fake_deadline"],
                        port=int(logger["port"]),
                    ).start()
                )
        ctx = RunContext(layout, Path(spec["binary"]), fake.url, spec["prompt"], spec["options"])
        env = base_host_env(layout, spec["caller_env"])
        env.update(launcher.env(ctx))
        env.update(spec["extra_env"])
        ctx.env = env
        launcher.prepare(ctx)
        argv = ["timeout", "-k", "5", f"{spec['timeout']:g}", *launcher.argv(ctx)]
        started = time.monotonic()
        with (layout.root / "host-stdout.txt").open("wb") as out, (layout.root / "host-stderr.txt").open("wb") as err:
            where = layout.project / spec["cwd"] if spec.get("cwd") else layout.project
            proc = subprocess.Popen(argv, cwd=where, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
            # A blocking wait with a kill timer, not wait(timeout=...): that one polls with sleeps of
            # up to 50 ms, which rounded every host's wall time up to the next 50 ms step (10 % of a
            # Codex session) for benchmarks/bench_session.py.
            killer = threading.Timer(spec["timeout"] + 15, proc.kill)
            killer.start()
            try:
                code = proc.wait()
            finally:
                killer.cancel()
        wall = time.monotonic() - started
        try:  # `timeout` made its own process group: end whatever the host left behind
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        result.update(
            {
                "exit_code": code,
                "timed_out": code in (124, 137, -9),
                "wall_time": round(wall, 3),
                "argv": argv,
                "env": env,
                "port": fake.port,
            }
        )
    except Exception as exc:  # noqa: BLE001 - reported to the parent through result.json
        result["error"] = f"{type(exc).__name__}: {exc}"
    finally:
        for logger in loggers:
            logger.stop()
        if fake is not None:
            fake.stop("host exited")
            result["fake_stop_reason"] = fake.stop_reason
        tmp = result_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(result, indent=2))
        os.replace(tmp, result_path)
    return 0 if "error" not in result else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--inside":
        sys.exit(_inside(Path(sys.argv[2])))
    print("usage: python -m pasture.hostenv.runner --inside SPEC.json", file=sys.stderr)
    sys.exit(2)
