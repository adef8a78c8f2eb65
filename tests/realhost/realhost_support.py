"""Shared machinery for the real-host proof: a temp project with OUR generated adapter installed,
this repo's runtime behind ``PASTURE_BIN`` (which the run's launcher execs: installed hooks name the
launcher by absolute path and no longer read the variable), a policy and a journal in the run folder, one real host
run against a scripted fake model on 127.0.0.1, and readers for what came out.

Nothing here changes what the runtime does. The ``PASTURE_BIN`` wrapper only *records* each call
(argv, cwd, stdin, stdout, stderr, exit code) into ``<run>/pasture-calls/`` and passes the runtime's
stdout, stderr and exit code through unchanged, so a report can say exactly what we answered and
what the host then did.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pasture.hostenv import HostRun, HostRunResult, Script, prepare_run
from pasture.hostenv.npm_tools import pinned_versions
from pasture.hosts import HOSTS
from pasture.runtime.tables import resolve

REPO = Path(__file__).resolve().parents[2]
GENERATED = REPO / "generated"

#: The shell command the fake model asks every host to run, and the file it would create.
COMMAND = "echo pasture-probe > probe.txt"
PROBE_FILE = "probe.txt"
PROBE = Script.shell_then_reply(COMMAND, "Done. The tool said: {tool_result}")

#: Our deny reason: must come back to the model verbatim inside the host's tool result.
DENY_REASON = "pasture-realhost: probe.txt may not be written (rule realhost-no-probe)"
#: What the crashing gate writes on stderr before exiting non-zero.
CRASH_MARK = "pasture-realhost gate crashed on purpose"
CRASH_EXIT = 7  # distinct from every exit code the runtime itself uses (0, 1, 2, 3)
#: What the OS says when the journal's folder is a file (see broken_journal).
JOURNAL_REFUSAL = "Not a directory"


@dataclass(frozen=True)
class HostSpec:
    """What differs per real host, as its hooks see it."""

    host: str  # hostenv host name == pasture harness name
    pre_event: str  # the gate-consultation row in front of a tool call
    post_event: str  # the event after a tool call ran
    shell_tool: str  # the shell tool's name as hooks see it
    post_identities: tuple[str, ...]  # identity kinds the post-tool row must resolve

    @property
    def package(self) -> str:
        return HOSTS[self.host].npm_packages[0]

    @property
    def version(self) -> str:
        return pinned_versions(REPO)[self.package]

    @property
    def contract(self) -> str:
        """The generated contract that admits the pinned host version (a floor admits later releases)."""
        contract = resolve(self.host, self.version, self.pre_event).contract
        assert contract is not None, f"no generated contract admits {self.host} {self.version}"
        return contract

    @property
    def adapter_dir(self) -> Path:
        return GENERATED / self.contract

    def row(self, event: str) -> Any:
        """The generated contract row the runtime resolves for ``event`` on this host."""
        row = resolve(self.host, self.version, event).row
        assert row is not None, f"{self.contract} declares no {event}"
        return row

    def observation_events(self) -> tuple[str, ...]:
        """Every event the contract declares as an observation row."""
        import importlib

        module = resolve(self.host, self.version, self.pre_event)
        rows = importlib.import_module(f"pasture_contracts.{_module_of(module.contract)}").ROWS
        return tuple(name for name, row in rows.items() if row.semantic == "observation")


def _module_of(contract: str | None) -> str:
    import importlib

    index = importlib.import_module("pasture_contracts")  # on sys.path once resolve() has run
    return next(module for entries in index.ADMISSIONS.values() for cid, module, *_ in entries if cid == contract)


#: The exit code the runtime gives the host for a failure, by effective failure mode (pasture/runtime/answer.py).
FAILURE_EXIT = {
    "report-and-continue": 0,
    "observe-only": 0,
    "strict-hook-failure": 1,
    "exit-2-blocks": 2,
    "strict-output-exit-2-blocks": 2,
    "throw-fail-fast": 3,
}


CLAUDE = HostSpec("claude-code", "PreToolUse", "PostToolUse", "Bash", ("session", "tool-call"))
CODEX = HostSpec("codex", "PreToolUse", "PostToolUse", "Bash", ("session", "turn", "tool-call"))
OPENCODE = HostSpec("opencode", "tool.execute.before", "tool.execute.after", "bash", ("session", "tool-call"))
SPECS = {s.host: s for s in (CLAUDE, CODEX, OPENCODE)}
#: Gemini CLI payloads carry only the session (no turn or tool-call id); not in SPECS yet, whose
#: tests were written for the first three hosts (tests/realhost/test_realhost_gemini_cli.py runs it).
GEMINI = HostSpec("gemini-cli", "BeforeTool", "AfterTool", "run_shell_command", ("session",))
#: Not in SPECS (the tests written for the first three hosts loop over it): tests/realhost/test_realhost_copilot_cli.py.
COPILOT = HostSpec("copilot-cli", "preToolUse", "postToolUse", "bash", ("session",))
#: Not in SPECS either: tests/realhost/test_realhost_pi.py. Pi's events carry only the tool-call id.
PI = HostSpec("pi", "tool_call", "tool_result", "bash", ("tool-call",))
#: Not in SPECS either: tests/realhost/test_realhost_qwen_code.py. Its rows resolve only the session.
QWEN = HostSpec("qwen-code", "PreToolUse", "PostToolUse", "run_shell_command", ("session",))
#: Not in SPECS either: tests/realhost/test_realhost_cline.py. Its payloads carry the task id as the session.
CLINE = HostSpec("cline", "PreToolUse", "PostToolUse", "run_commands", ("session",))


def hook_contexts(requests: list[dict[str, Any]]) -> list[str]:
    """Cline: the texts its hooks added for the model (a user message ``<hook_context source=...>``, beside
    the refused call's "Invalid input" result), de-duplicated across requests."""
    seen: list[str] = []
    for req in requests:
        for msg in (req.get("body") or {}).get("messages", []):
            content = msg.get("content")
            parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
            for part in parts:
                text = part.get("text") if isinstance(part, dict) else None
                if msg.get("role") == "user" and isinstance(text, str) and "<hook_context" in text and text not in seen:
                    seen.append(text)
    return seen


# --- policies and gates -------------------------------------------------------------------------


def _toml(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


def deny_policy() -> str:
    """A rules gate with one deny rule on the probe's shell command; everything else proceeds."""
    return "\n".join(
        [
            "[gate]",
            'kind = "rules"',
            'default = "proceed"',
            "",
            "[[rules]]",
            'name = "realhost-no-probe"',
            'decision = "deny"',
            f"reason = {_toml(DENY_REASON)}",
            'tool_kind = "shell"',
            'command = "pasture-probe\\\\s*>\\\\s*probe\\\\.txt"',
            "",
        ]
    )


def allow_policy() -> str:
    """A rules gate whose only rule matches nothing the probe does: the default (proceed) decides."""
    return "\n".join(
        [
            "[gate]",
            'kind = "rules"',
            'default = "proceed"',
            "",
            "[[rules]]",
            'name = "realhost-no-rm-rf"',
            'decision = "deny"',
            'reason = "no rm -rf"',
            'tool_kind = "shell"',
            'command = "rm\\\\s+-rf"',
            "",
        ]
    )


_CRASH_GATE = r'''"""pasture realhost test gate: crashes (exit CRASH_EXIT) on the events named in argv,
else proceeds."""
import json, sys
envelope = json.load(sys.stdin)
if envelope.get("event") in sys.argv[1:]:
    sys.stderr.write(CRASH_MARK + " (" + str(envelope.get("event")) + ")\n")
    sys.exit(CRASH_EXIT)
print(json.dumps({"decision": "proceed", "reason": "realhost gate: not a crash event"}))
'''


def crash_policy(folder: Path, crash_on: tuple[str, ...]) -> str:
    """A command gate that exits non-zero for the events in ``crash_on`` and proceeds on the rest.

    A gate that crashed on *every* event would stop each host before it ever asked for a tool
    (Claude UserPromptSubmit and every OpenCode chat.* hook are gate-consultation rows too), so the
    crash is aimed at the rows under test.
    """
    gate = folder / "crash_gate.py"
    gate.write_text(_CRASH_GATE.replace("CRASH_MARK", json.dumps(CRASH_MARK)).replace("CRASH_EXIT", str(CRASH_EXIT)))
    argv = [sys.executable, "-I", "-S", str(gate), *crash_on]
    return "\n".join(
        [
            "[gate]",
            'kind = "command"',
            f"command = [{', '.join(_toml(a) for a in argv)}]",
            "timeout = 20",
            "",
        ]
    )


GATE_SCRIPT = r"""import json, sys
envelope = json.load(sys.stdin)
deny = envelope.get("tool_kind") == "shell" and "probe.txt" in (envelope.get("command") or "")
print(json.dumps({"decision": "deny" if deny else "proceed", "reason": sys.argv[1]}))
"""


def free_port() -> int:
    import socket

    with socket.socket() as probe:  # free here; the run's namespace has every port free
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def deny_gate(kind: str, folder: Path, reason: str, events: tuple[str, ...] = ()) -> tuple[str, dict, dict, str]:
    """(user-layer policy, loggers, extra env, the journal's gate name) of one gate kind that refuses the
    probe command with ``reason`` (``rules``: :func:`deny_policy`'s own reason; ``command``: a script;
    ``ai``: a fake chat-completions judge on a logger port inside the run's namespace, which denies whatever
    it is asked: ``events`` keeps it to those, where a host's prompt row would ask it too)."""
    if kind == "rules":
        return deny_policy(), {}, {}, "rules:realhost-no-probe"
    if kind == "command":
        script = folder / "gate.py"
        script.parent.mkdir(parents=True, exist_ok=True)
        script.write_text(GATE_SCRIPT)
        argv = [sys.executable, "-I", "-S", str(script), reason]
        return f'[gate]\nkind = "command"\ncommand = {json.dumps(argv)}\ntimeout = 20\n', {}, {}, "command"
    port = free_port()
    verdict = json.dumps({"decision": "deny", "reason": reason})
    policy = f'[gate]\nkind = "ai"\nmodel = "gate/model"\nbase_url = "http://127.0.0.1:{port}/v1"\ntimeout = 20\n'
    if events:
        policy += f"events = {json.dumps(list(events))}\n"
    return policy, {"ai": {"port": port, "default": {"content": verdict}}}, {"PASTURE_AI_API_KEY": "sk-fake"}, "ai"


def broken_journal(work: Path) -> Path:
    """A journal path the runtime cannot write for a whole run: its folder is a regular file.

    The hook appends each event to ``<journal>.spool`` (pasture/runtime/journal.py); with the parent
    "folder" a file, opening it fails with ENOTDIR on every event. (The tests run as root, so a
    read-only folder would not stop the write; a file where a folder belongs stops everyone.)
    Every row then gets its effective failure mode, with one line naming the journal."""
    blocker = work / "journal-is-a-file"
    blocker.write_text("a file where the journal's folder should be\n")
    return blocker / "journal.sqlite3"


# --- the PASTURE_BIN wrapper --------------------------------------------------------------------


def write_wrapper(folder: Path, calls: Path, tables: Path | None = None) -> Path:
    """``<folder>/pasture``: runs ``<this interpreter> -m pasture.entry "$@"`` with this repo first on
    PYTHONPATH, recording each call into its own folder under ``calls``. stdin and stdout are
    streamed through ``tee``, so the long-lived ``hook serve`` (OpenCode) works through it as well
    as a one-shot ``hook lifecycle``; ``rc`` appears when the runtime has exited. ``tables``:
    another pasture tree whose ``generated/python`` contract tables the runtime reads instead of
    this repo's."""
    path_entries = str(REPO) + (f":{tables / 'generated' / 'python'}" if tables is not None else "")
    py, repo, calls_q = shlex.quote(sys.executable), shlex.quote(path_entries), shlex.quote(str(calls))
    script = f"""#!/bin/sh
# pasture realhost wrapper: this repo's runtime, each call recorded; output and exit code unchanged
call={calls_q}/$(date +%s%N).$$
mkdir -p "$call"
printf '%s\\n' "$@" > "$call/argv"
pwd > "$call/cwd"
tee "$call/stdin" | {{ PYTHONPATH={repo}${{PYTHONPATH:+:$PYTHONPATH}} {py} -m pasture.entry "$@" 2> "$call/stderr"
  echo $? > "$call/rc.tmp"; }} | tee "$call/stdout"
cat "$call/stderr" >&2
mv "$call/rc.tmp" "$call/rc"
exit "$(cat "$call/rc")"
"""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "pasture"
    path.write_text(script)
    path.chmod(0o755)
    return path


def point_launcher_at(installed: "Installed", binary: str) -> None:
    """The installed hooks name the launcher by absolute path, with no variable in front of it (issue
    18), so ``PASTURE_BIN`` no longer reaches them: the run's launcher (in the run's own XDG data folder)
    is replaced by one line that execs the wrapper, a path written here, never looked up. The OpenCode
    plugin still starts ``$PASTURE_BIN`` itself."""
    launcher = (installed.report or {}).get("launcher") or {}
    if not launcher.get("path"):
        return
    path = Path(launcher["path"])
    path.write_text(f'#!/bin/sh\nexec {shlex.quote(binary)} "$@"\n')
    path.chmod(0o755)


@dataclass
class Call:
    """One recorded runtime call."""

    argv: list[str]
    cwd: str
    stdin: str
    stdout: str
    stderr: str
    rc: int | None

    @property
    def event(self) -> str | None:
        return self.argv[self.argv.index("--event") + 1] if "--event" in self.argv else None

    @property
    def payload(self) -> Any:
        try:
            return json.loads(self.stdin)
        except ValueError:
            return None

    def brief(self) -> str:
        if self.serves:
            return f"hook serve: rc={self.rc} {len(self.served())} request(s) stderr={self.stderr.strip()[:300]!r}"
        return f"{self.event}: rc={self.rc} stdout={self.stdout.strip()[:300]!r} stderr={self.stderr.strip()[:300]!r}"

    @property
    def serves(self) -> bool:
        """A long-lived ``hook serve`` process (OpenCode) rather than one ``hook lifecycle`` call."""
        return self.argv[:2] == ["hook", "serve"]

    def served(self) -> list["Served"]:
        """The requests a ``hook serve`` process was sent, in order, each with its reply."""
        replies: dict[int, dict[str, Any]] = {}
        for line in self.stdout.splitlines():
            try:
                reply = json.loads(line)
            except ValueError:
                continue
            if isinstance(reply, dict) and isinstance(reply.get("id"), int):
                replies[reply["id"]] = reply
        out = []
        for line in self.stdin.splitlines():
            request = json.loads(line)
            out.append(Served(request["event"], request["wait"], request.get("payload"), replies.get(request["id"])))
        return out


@dataclass
class Served:
    """One request a ``hook serve`` process got, with its reply (None: it never answered)."""

    event: str
    wait: bool
    payload: Any
    reply: dict[str, Any] | None

    @property
    def rc(self) -> int | None:
        return None if self.reply is None else self.reply.get("exit")

    @property
    def stdout(self) -> str:
        return "" if self.reply is None else self.reply.get("stdout", "")

    @property
    def stderr(self) -> str:
        return "" if self.reply is None else self.reply.get("stderr", "")

    def brief(self) -> str:
        return f"{self.event}: wait={self.wait} rc={self.rc} stdout={self.stdout.strip()[:300]!r}"


def read_calls(calls: Path) -> list[Call]:
    out = []
    if not calls.is_dir():
        return out
    for d in sorted(calls.iterdir(), key=lambda p: (int(p.name.split(".")[0]), p.name)):

        def text(name: str, d: Path = d) -> str:
            f = d / name
            return f.read_text(errors="replace") if f.exists() else ""

        rc = text("rc").strip()
        out.append(
            Call(
                text("argv").splitlines(),
                text("cwd").strip(),
                text("stdin"),
                text("stdout"),
                text("stderr"),
                int(rc) if rc else None,
            )
        )
    return out


# --- installing our adapter ---------------------------------------------------------------------


@dataclass
class Installed:
    """How the adapter got into the project."""

    how: str  # "pasture install" | "by hand"
    detail: str
    report: dict[str, Any] | None = None  # `pasture install --json`
    codex_trust_toml: str = ""  # codex: the [hooks.state."<key>"] tables install recorded


def install_argv() -> list[str] | None:
    """The argv prefix of the real ``pasture install`` click command: the registered ``pasture
    install`` if pasture/cli/__init__.py has it, else the command object in pasture/install directly;
    None if neither exists (then the adapter is placed by hand)."""
    try:
        from pasture.cli import main as cli_main
    except ImportError:  # pragma: no cover
        cli_main = None
    if cli_main is not None and "install" in getattr(cli_main, "commands", {}):
        return [sys.executable, "-m", "pasture.entry", "install"]
    try:
        import pasture.cli.install  # noqa: F401
    except ImportError:
        return None
    return [
        sys.executable,
        "-c",
        "import sys; from pasture.cli.install import install; install.main(sys.argv[1:], prog_name='pasture install')",
    ]


def _install_env(run: HostRun, npm_bin: Path) -> dict[str, str]:
    from pasture.hostenv.runner import base_host_env

    env = base_host_env(run.layout)
    env["PATH"] = f"{npm_bin}:{env['PATH']}"
    env["PYTHONPATH"] = str(REPO)
    if run.host == "codex":
        env["CODEX_HOME"] = str(run.layout.home / ".codex")
    return env


def _codex_config_for_install(run: HostRun) -> Path:
    """Codex's config.toml as the launcher writes it (the project trusted, plugins off, the fake
    provider at a placeholder address that nobody dials), so ``codex app-server`` sees the project
    exactly as the real run will."""
    from pasture.hosts import launcher_for
    from pasture.hosts.launch import RunContext

    launcher = launcher_for("codex")
    ctx = RunContext(run.layout, run.binary, "http://127.0.0.1:9", "", launcher.options({"hook_trust": "none"}))
    config = run.layout.home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(launcher.config_toml(ctx))
    return config


def _hooks_state_toml(config: Path) -> str:
    """The [hooks.state."<key>"] tables of ``config``, re-emitted as TOML text."""
    import tomllib

    state = tomllib.loads(config.read_text()).get("hooks", {}).get("state", {})
    return "".join(
        f"\n[hooks.state.{_toml(key)}]\n" + "".join(f"{k} = {_toml(v)}\n" for k, v in entry.items())
        for key, entry in state.items()
    )


def install_adapter(
    spec: HostSpec, run: HostRun, npm_bin: Path, repo: Path | None = None, scope: str = "project"
) -> Installed:
    """Put our adapter where the real host reads it: with ``pasture install`` when it exists (run in
    its own network namespace, so ``codex app-server`` can reach nothing), else by hand. ``repo``:
    the pasture tree whose generated adapters are installed (default this one); ``scope``:
    ``"project"`` (``--project <project>``) or ``"user"`` (``--user``: the run's HOME)."""
    argv = install_argv()
    if argv is None:
        assert repo is None and scope == "project", "installing this way needs pasture install"
        return _install_by_hand(spec, run)
    repo = repo or REPO
    from pasture.hostenv import isolation_support

    config = _codex_config_for_install(run) if spec.host == "codex" else None
    where = ["--project", str(run.project)] if scope == "project" else ["--user"]
    argv = [*isolation_support().wrapper, *argv, spec.host, *where, "--root", str(repo), "--json"]
    if spec.host == "codex":
        argv += ["--codex-bin", str(npm_bin / "codex")]
    if spec.host == "opencode":
        argv += ["--opencode-bin", str(npm_bin / "opencode")]
    if spec.host in ("gemini-cli", "copilot-cli") and scope == "project":
        argv += ["--trust-project"]  # the folder trust install records is what lets the host load them
    done = subprocess.run(
        argv,
        capture_output=True,
        text=True,
        cwd=run.project,
        env=_install_env(run, npm_bin),
        stdin=subprocess.DEVNULL,
        timeout=180,
    )
    assert done.returncode == 0, (
        f"pasture install {spec.host} failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    report = json.loads(done.stdout)
    trust = _hooks_state_toml(config) if config is not None else ""
    return Installed("pasture install", f"pasture install {spec.host} {' '.join(where)}", report, trust)


def _install_by_hand(spec: HostSpec, run: HostRun) -> Installed:
    src = spec.adapter_dir
    project = run.project
    if spec.host == "claude-code":
        dest = project / ".claude" / "settings.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes((src / "settings.json").read_bytes())
    elif spec.host == "codex":
        dest = project / ".codex" / "hooks.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes((src / "hooks.json").read_bytes())
    elif spec.host == "gemini-cli":
        dest = project / ".gemini" / "settings.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes((src / "settings.json").read_bytes())
    elif spec.host == "pi":
        dest = project / ".pi" / "extensions" / "pasture-lifecycle.ts"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes((src / "pasture-lifecycle.ts").read_bytes())
    else:
        dest = project / ".opencode" / "plugins" / "pasture-lifecycle.ts"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes((src / "pasture-lifecycle.ts").read_bytes())
    return Installed("by hand", f"{src.relative_to(REPO)} -> {dest.relative_to(run.root)}")


def tool_results(host: str, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every tool result a host sent back to the model: ``{"call_id", "text", "is_error"}``,
    de-duplicated across requests (each request repeats the conversation so far)."""
    seen: dict[str, dict[str, Any]] = {}
    for req in requests:
        body = req.get("body") or {}
        if host == "claude-code":
            for msg in body.get("messages", []):
                if msg.get("role") != "user" or not isinstance(msg.get("content"), list):
                    continue
                for part in msg["content"]:
                    if isinstance(part, dict) and part.get("type") == "tool_result":
                        content = part.get("content")
                        text = (
                            content
                            if isinstance(content, str)
                            else " ".join(p.get("text", "") for p in content or [] if isinstance(p, dict))
                        )
                        seen[part.get("tool_use_id")] = {
                            "call_id": part.get("tool_use_id"),
                            "text": text,
                            "is_error": part.get("is_error"),
                        }
        elif host == "gemini-cli":
            for content in body.get("contents", []):
                for part in (content or {}).get("parts") or []:
                    response = part.get("functionResponse") if isinstance(part, dict) else None
                    if isinstance(response, dict):
                        answer = response.get("response") or {}
                        text = answer.get("output", answer.get("error"))
                        key = response.get("id") or response.get("name")
                        seen[key] = {
                            "call_id": key,
                            "text": text if isinstance(text, str) else json.dumps(text),
                            "is_error": "error" in answer,
                        }
        elif host == "codex":
            for item in body.get("input", []):
                if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
                    output = item.get("output")
                    text = output if isinstance(output, str) else json.dumps(output)
                    seen[item.get("call_id")] = {"call_id": item.get("call_id"), "text": text, "is_error": None}
        else:
            for msg in body.get("messages", []):
                if msg.get("role") == "tool":
                    content = msg.get("content")
                    parts = content if isinstance(content, list) else None
                    if parts and all(isinstance(p, dict) and p.get("type") == "text" for p in parts):
                        content = "".join(str(p.get("text", "")) for p in parts)  # Qwen Code: text parts
                    text = content if isinstance(content, str) else json.dumps(content)
                    seen[msg.get("tool_call_id")] = {"call_id": msg.get("tool_call_id"), "text": text, "is_error": None}
    return list(seen.values())


# --- OpenCode: what depends on how our plugin talks to the runtime -----------------------------
# The plugin starts one `pasture hook serve` per plugin instance and sends it every hook call and
# bus event as a JSON line (pasture/runtime/serve.py); the wrapper records the whole stream, and
# Outcome.served() reads it back as one request + reply per event. Decisions are read from the
# journal and what the model was told from the fake's log; what needs the plugin's own text lives here.


def opencode_fail_fast(event: str, why: str) -> str:
    """What the plugin throws (and OpenCode tells the model) when the runtime fails a fail-fast row
    (the runtime's exit for it, throw-fail-fast, in its ``hook serve`` reply, with ``why``, the line the
    reply's stdout gives for the model; templates/opencode/_runtime.ts.j2)."""
    status = FAILURE_EXIT["throw-fail-fast"]
    tail = f": {' '.join(why.split())}" if why else ""
    return (
        f"pasture refused {event}: the runtime failed on this event (status {status}){tail}, and this hook fails fast"
    )


def served_failure(call: Any) -> str:
    """The runtime's line for the model in a failure reply of ``hook serve`` (``{"failure": ...}`` on its
    stdout), checked to be one of the user's lines on stderr without its ``pasture: `` prefix."""
    why = json.loads(call.stdout)["failure"]
    assert f"pasture: {why}\n" in call.stderr, (call.stdout, call.stderr)
    return why


def opencode_registered_timeout_ms(project: Path, event: str) -> int:
    """The timeout (ms) after which the installed OpenCode plugin gives up on the runtime for ``event``."""
    import re

    plugin = (project / ".opencode" / "plugins" / "pasture-lifecycle.ts").read_text()
    found = re.search(r'"' + re.escape(event) + r'": \{[^}]*?"timeoutMs":\s*(\d+)', plugin)
    assert found, f"the installed plugin declares no timeoutMs for {event}"
    return int(found.group(1))


# --- one run ------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """A finished real-host run with everything a test asserts on."""

    spec: HostSpec
    run: HostRun
    result: HostRunResult
    install: Installed | None
    journal_path: Path
    calls_dir: Path
    options: dict[str, Any] = field(default_factory=dict)
    #: Codex only: who recorded hook trust: "pasture install", "persist" (hostenv's app-server
    #: route, when install is not available) or "none" (nobody).
    install_trust: str | None = None
    #: The user's environment for pasture commands against this run's state (see user_env).
    env: dict[str, str] = field(default_factory=dict)
    #: How the host is launched (execute's arguments), so the same project can be run again.
    launch: dict[str, Any] = field(default_factory=dict)
    #: 1 for the first run in this folder, 2 after one rerun, ...
    phase: int = 0

    def execute(self) -> "Outcome":
        """Run the host (again) in this run folder. The previous run's runtime calls and model and
        logger logs move to ``<run>/phase-<n>/`` first, so each Outcome reads only its own run."""
        if self.phase:
            keep = self.run.root / f"phase-{self.phase}"
            keep.mkdir()
            for name in [
                self.calls_dir.name,
                "fake-requests.jsonl",
                *[p.name for p in self.run.root.glob("logger-*.jsonl")],
            ]:
                if (self.run.root / name).exists():
                    (self.run.root / name).rename(keep / name)
        launch = self.launch
        self.result = self.run.execute(
            launch["script"],
            timeout=launch["timeout"],
            options=self.options,
            extra_env=launch["extra_env"],
            cwd=launch["cwd"],
            loggers=launch["loggers"],
            isolation=launch["isolation"],
        )
        self.phase += 1
        assert_loopback_only(self)  # every run, whatever the test checks next
        return self

    def pasture(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """``pasture ARGS`` as the user of this run would type it (the run's HOME, trust store, ...)."""
        return subprocess.run(
            [sys.executable, "-m", "pasture.entry", *args],
            capture_output=True,
            text=True,
            cwd=cwd or self.project,
            env=self.env,
            stdin=subprocess.DEVNULL,
            timeout=120,
        )

    def trust_project(self) -> str:
        """``pasture policy trust --project <project>``, answered ``y`` at a real terminal the way the
        user answers it (it asks on /dev/tty, never stdin): must succeed; returns its output."""
        from terminal import run_at_terminal

        code, shown, out, err = run_at_terminal(
            [sys.executable, "-m", "pasture.entry", "policy", "trust", "--project", str(self.project)],
            env=self.env,
            cwd=self.project,
            timeout=120,
        )
        assert code == 0, f"pasture policy trust failed ({code}): {shown}{out}{err}"
        return out

    def logger_requests(self, name: str) -> list[dict[str, Any]]:
        """What the logger ``name`` received during this run (see HostRun.execute ``loggers``)."""
        path = self.run.root / f"logger-{name}.jsonl"
        assert path.exists(), f"logger {name} never started"
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def codex_trust(self) -> list[dict[str, Any]]:
        """The hooks whose trust was recorded: ``{"key", "hash"}`` each."""
        if self.install_trust == "pasture install":
            assert self.install.report is not None
            return [{"key": h["key"], "hash": h["hash"]} for h in self.install.report["trust"]["hooks"]]
        path = self.run.root / "codex-hook-trust.json"
        listed = json.loads(path.read_text()) if path.exists() else []
        return [{"key": h["key"], "hash": h["currentHash"]} for h in listed]

    @property
    def project(self) -> Path:
        return self.run.project

    @property
    def probe_exists(self) -> bool:
        return (self.project / PROBE_FILE).exists()

    def calls(self, event: str | None = None) -> list[Call]:
        return [c for c in read_calls(self.calls_dir) if event is None or c.event == event]

    def served(self, event: str | None = None) -> list[Served]:
        """Every request the OpenCode plugin sent its ``hook serve`` process(es), in order, each with
        the runtime's reply: what the runtime answered the plugin, event by event."""
        return [
            s for c in read_calls(self.calls_dir) if c.serves for s in c.served() if event is None or s.event == event
        ]

    def wait_for_runtime_exit(self, timeout: float = 60.0) -> bool:
        """Whether every recorded runtime process has exited (its ``rc`` written) within ``timeout``;
        the OpenCode runtime journals what it was handed after the host has gone."""
        import time

        until = time.monotonic() + timeout
        while time.monotonic() < until:
            if all(c.rc is not None for c in read_calls(self.calls_dir)):
                return True
            time.sleep(0.1)
        return False

    def journal(self, path: Path | None = None, **filters: str) -> list[dict[str, Any]]:
        """``pasture journal --json`` on this run's journal (or ``path``), through the real CLI."""
        argv = ["journal", "--json", "--journal", str(path or self.journal_path)]
        for key, value in filters.items():
            argv += [f"--{key}", value]
        done = self.pasture(*argv)
        assert done.returncode == 0, f"pasture journal failed: {done.stderr}"
        return json.loads(done.stdout or "[]")

    def tool_results(self) -> list[dict[str, Any]]:
        return tool_results(self.spec.host, self.result.requests)

    def model_call_ids(self) -> list[str]:
        """The ids of the tool calls the model made, as the host echoed them back."""
        return [r["call_id"] for r in self.tool_results()]

    def describe(self) -> str:
        calls = "\n".join("  " + c.brief() for c in self.calls())
        served = "\n".join("  " + s.brief() for s in self.served() if s.wait)
        if served:
            calls += "\n  awaited requests:\n" + served
        results = "\n".join(f"  {r}" for r in self.tool_results())
        how = f"{self.install.how}: {self.install.detail}" if self.install else "none (the test loads the adapter)"
        return (
            f"{self.result.describe()}\ninstall: {how}\nprobe.txt exists: {self.probe_exists}\n"
            f"runtime calls:\n{calls or '  (none)'}\ntool results sent to the model:\n{results or '  (none)'}"
        )


def pasture_env(run: HostRun, work: Path, wrapper: Path, policy: Path, journal: Path | None) -> dict[str, str]:
    """The pasture variables every hook of a run sees, each pointing into the run folder, so that
    nothing on the machine (a managed policy in /etc/pasture, the caller's trust store, policy
    cache or journal) reaches the test, and the test writes nothing outside its run folder.
    HOME and XDG_* already point into the run folder (pasture.hostenv.runner.base_host_env)."""
    env = {
        "PASTURE_BIN": str(wrapper),
        "PASTURE_POLICY": str(policy),  # the USER layer (absent unless the test wrote it)
        "PASTURE_MANAGED_POLICY": str(work / "managed" / "policy.toml"),  # absent: no managed layer
        "PASTURE_TRUST_STORE": str(work / "state" / "trust.json"),
        "PASTURE_CACHE_DIR": str(work / "cache"),
    }
    if journal is not None:
        env["PASTURE_JOURNAL"] = str(journal)
    return env


def user_env(run: HostRun, pasture: dict[str, str]) -> dict[str, str]:
    """The environment of the person at the keyboard of this run (for `pasture policy`, `pasture
    journal`): the run's HOME and XDG folders, the same pasture variables as the hooks, this repo."""
    from pasture.hostenv.runner import base_host_env

    env = base_host_env(run.layout)
    env.update(pasture)
    env["PYTHONPATH"] = str(REPO)
    return env


def run_host(
    spec: HostSpec,
    npm_bin: Path,
    root: Path,
    policy: str | None,
    *,
    options: dict[str, Any] | None = None,
    crash_on: tuple[str, ...] = (),
    timeout: float = 90.0,
    install: bool | str = True,
    script: Script = PROBE,
    journal: str = "run",
    project_policy: str | None = None,
    trust_project: bool = False,
    prepare: Any = None,
    cwd: str | None = None,
    loggers: dict[str, dict[str, Any]] | None = None,
    extra_env: dict[str, str] | None = None,
    repo: Path | None = None,
    isolation: str | None = None,
    record_opencode: Path | None = None,
    reaches_model: bool = True,
    host_deny_rules: bool = True,
    after_install: Any = None,
) -> Outcome:
    """Prepare a temp project with our adapter, the wrapper, the policy layers and a journal; run the host once.

    ``policy``: the USER layer's TOML text (``PASTURE_POLICY``); None: a crash policy built from
    ``crash_on`` when that is given, else no user layer. ``project_policy``: the project layer,
    written to ``<project>/.pasture/policy.toml``; ``trust_project``: pin it with the real
    ``pasture policy trust`` before the run. ``journal``: ``"run"`` (``PASTURE_JOURNAL`` in the run
    folder), ``"broken"`` (a path nobody can write, see broken_journal) or ``"layers"`` (no
    ``PASTURE_JOURNAL``: the policy layers decide, by default ``<root>/.pasture/journal.sqlite3``).
    ``prepare(run)``: called once the project exists, before install. ``cwd``: the project
    subfolder the host starts in. ``repo``: the pasture checkout whose generated adapter is
    installed and whose tables the runtime reads (default this one). ``extra_env``: overrides the
    pasture variables of the hooks. ``isolation``: hostenv's mode (``netns`` lets a process the host
    left behind outlive the run, which ``netns+pidns`` kills). ``record_opencode``: a log for a
    recording plugin loaded next to ours, registering every hook ours does. ``reaches_model``:
    whether the host is expected to ask the model for a turn; False asserts that it never does (a
    prompt refused before the first turn). ``after_install(run)``: called once the adapter is installed
    (a repository changing after install). ``host_deny_rules=False``: take out the
    permissions.deny rules `pasture install` wrote for Claude Code, so the hooks alone guard the
    guard's files (Claude refuses a denied file tool before its PreToolUse hook runs).
    """
    run = prepare_run(spec.host, npm_bin, root)
    work = run.root / "pasture"
    calls = run.root / "pasture-calls"
    wrapper = write_wrapper(work, calls, repo)
    policy_path = work / "policy.toml"
    text = policy if policy is not None else (crash_policy(work, crash_on) if crash_on else None)
    if text is not None:
        policy_path.write_text(text)
    journal_path = {
        "run": work / "journal.sqlite3",
        "broken": broken_journal(work) if journal == "broken" else None,
        "layers": None,
    }[journal]
    env = pasture_env(run, work, wrapper, policy_path, journal_path)
    if journal_path is None:
        journal_path = run.project / ".pasture" / "journal.sqlite3"
    if project_policy is not None:
        (run.project / ".pasture").mkdir(exist_ok=True)
        (run.project / ".pasture" / "policy.toml").write_text(project_policy)
    if prepare is not None:
        prepare(run)
    # install=False: the test loads the adapter some other way (e.g. Claude's --plugin-dir);
    # install="user": pasture install --user.
    installed = (
        install_adapter(spec, run, npm_bin, repo, "user" if install == "user" else "project") if install else None
    )
    if after_install is not None:  # what a repository does once the adapter is in place
        after_install(run)
    hooks_run = {**env, **(extra_env or {})}.get("PASTURE_BIN")
    if installed is not None and hooks_run:
        point_launcher_at(installed, hooks_run)
    if not host_deny_rules and installed is not None and spec.host == "claude-code":
        settings_path = (
            run.project / ".claude" / "settings.json"
            if install != "user"
            else run.layout.home / ".claude" / "settings.json"
        )
        settings = json.loads(settings_path.read_text())
        settings.pop("permissions", None)  # the test project has no permissions of its own
        settings_path.write_text(json.dumps(settings, indent=2) + "\n")
    if record_opencode is not None:
        write_opencode_recorder(spec, run, record_opencode)
    opts = dict(options or {})
    if spec.host == "gemini-cli" and installed is not None and installed.how == "pasture install":
        opts.setdefault("trust", "none")  # no GEMINI_CLI_TRUST_WORKSPACE: install's folder trust must do it
    trust = None
    if spec.host == "codex":  # never --dangerously-bypass-hook-trust
        if opts.get("hook_trust") == "none":
            trust = "none"
        elif installed is not None and installed.how == "pasture install":
            # hostenv rewrites config.toml inside the namespace (it needs the fake's port), so the
            # [hooks.state] tables install recorded are carried over verbatim
            opts["hook_trust"] = "none"
            opts["config_toml_extra"] = installed.codex_trust_toml
            trust = "pasture install"
        else:
            opts["hook_trust"] = trust = "persist"
    outcome = Outcome(
        spec,
        run,
        None,
        installed,
        journal_path,
        calls,
        opts,
        trust,  # type: ignore[arg-type]
        env=user_env(run, env),
        launch={
            "script": script,
            "timeout": timeout,
            "cwd": cwd,
            "loggers": loggers,
            "reaches_model": reaches_model,
            "isolation": isolation,
            "extra_env": {**env, **(extra_env or {})},
        },
    )
    if trust_project:
        outcome.trust_project()
    return outcome.execute()


def opencode_hooks(spec: HostSpec) -> tuple[list[str], list[str]]:
    """(named hooks, declared bus event types) of the contract our OpenCode plugin is generated from."""
    import importlib

    resolved = resolve(spec.host, spec.version, spec.pre_event)
    rows = importlib.import_module(f"pasture_contracts.{_module_of(resolved.contract)}").ROWS
    named = [n for n, r in rows.items() if r.surface == "opencode-named-output"]
    bus = [n for n, r in rows.items() if r.surface == "opencode-catch-all-sse"]
    return named, bus


def write_opencode_recorder(spec: HostSpec, run: HostRun, log: Path) -> Path:
    """A recording plugin next to ours (loaded after it: plugins load in name order), registering the
    same named hooks and the catch-all event hook: what our plugin was handed, independently."""
    from pasture.hosts.opencode import opencode_recorder_plugin

    named, _ = opencode_hooks(spec)
    path = run.project / ".opencode" / "plugins" / "zz-pasture-recorder.js"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(opencode_recorder_plugin(log, hooks=[*named, "event"]))
    return path


def opencode_received(spec: HostSpec, log: Path) -> dict[str, int]:
    """How many of each event our plugin forwards the recorder saw: named hooks, declared bus types."""
    from collections import Counter

    from pasture.hostenv import read_records

    named, bus = opencode_hooks(spec)
    seen: Counter[str] = Counter()
    for record in read_records(log):
        if record["hook"] in named:
            seen[record["hook"]] += 1
        elif record["hook"] == "event":
            kind = (record.get("input") or {}).get("event", {}).get("type")
            if kind in bus:
                seen[kind] += 1
    return dict(seen)


def assert_loopback_only(outcome: Outcome) -> None:
    """Every request the fake saw came to 127.0.0.1, from a namespace whose only interface is lo."""
    from pasture.hostenv import isolation_support

    if isolation_support().private_network:
        assert outcome.result.isolation != "none"
        assert outcome.result.extra.get("interfaces") == ["lo"]
    if outcome.launch.get("reaches_model", True):
        assert outcome.result.requests, outcome.describe()
    else:  # a run refused before the first turn: no turn asked of the model (a side query may be)
        turns = [r for r in outcome.result.requests if r.get("reply", {}).get("kind") in ("turn", "final")]
        assert turns == [], outcome.describe()
    assert all(r["headers"].get("host", "").startswith("127.0.0.1:") for r in outcome.result.requests)
