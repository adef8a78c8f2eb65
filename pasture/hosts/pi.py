"""Pi (``@mariozechner/pi-coding-agent``): its adapter (one generated TypeScript extension per contract), its
catalog (the ``ExtensionAPI.on`` overloads of the shipped typings, read by pasture.catalog.pi), and its
offline run. Answers on the hook path: pasture/runtime/hostwire/pi.py.

Pi has no hook files. An extension (``.pi/extensions/*.ts`` in a project, ``<agent dir>/extensions/*.ts``
for the user; ``<agent dir>`` is ``$PI_CODING_AGENT_DIR``, else ``~/.pi/agent``) is loaded at startup with
no trust prompt and subscribes with ``pi.on(<event>, handler)``. It is an in-process plugin host like
OpenCode, so the adapter is a generated extension talking to the resident runtime (``pasture hook serve``)
with the protocol of pasture/hosts/opencode.py; its runtime half is OpenCode's
(templates/opencode/_runtime.ts.j2), included by templates/pi/extension.ts.j2.

* **Payload:** the event object Pi hands the handler, unchanged (``{type, toolName, toolCallId, input}`` for
  ``tool_call``), sent as the request's payload; the event name goes beside it.
* **Refusal:** a throw from a row's handler. Pi runs ``tool_call`` handlers outside its own error handling
  and blocks the tool when one throws, with the message as the blocked call's tool result (what the model
  reads; its docs: "tool_call errors block the tool (fail-safe)"); every other event's handler is
  wrapped and a throw is only logged. So only ``tool_call`` can carry a blocking claim, and only where a
  capture of the version shows the throw holding (pasture capture pi: ``tool-call-throw``). Pi also reads
  ``{block: true, reason}`` from ``tool_call`` (``tool-call-block``); the adapter keeps to the throw, the
  channel its failure mode names, which hands the model the same text.
* **Fail closed:** a runtime that cannot start, dies, answers badly or too late makes a fail-fast row that
  guards an action throw ``pasture refused tool_call: <one line>`` (the shared runtime half), which Pi
  turns into the blocked call's result; every other row logs the line (stderr) and Pi goes on.

Offline run: headless (``pi -p``) against the fake OpenAI Chat Completions server.

* **Model:** ``~/.pi/agent/models.json`` declares a provider ``pasture`` with ``baseUrl`` = the fake's
  ``/v1``, ``"api": "openai-completions"``, a fake key and one model; ``compat`` turns off the developer
  role and reasoning effort (the fake speaks plain chat).
* **Env:** ``PI_OFFLINE=1`` (no startup network operations), ``PI_TELEMETRY=0``.
* **Command:** ``pi --offline --provider pasture --model M --no-session -p PROMPT``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pasture import PastureError
from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext
from pasture.hosts.members import PluginFileMembers
from pasture.hosts.protocol import Host
from pasture.hosts.recording import CaptureAdapter, HookRecord, Records, Run
from pasture.hosts.scenario_sets import ALLOW, PROBE, Answer, Scenario
from pasture.hosts.serveplugin import (
    LOG_SERVICE,
    MAX_PAYLOAD_BYTES,
    MAX_REPLY_BYTES,
    MAX_STDERR_BYTES,
    SERVE_PROTOCOL,
    START_MS,
    argv_frame,
    serve_argv,
)
from pasture.profile.answers import schema_field
from pasture.profile.contracts import Contract, EventRow
from pasture.profile.vocab import EventSemantic, FailureMode, Harness, HookSurface, IdentityKind
from pasture.render import commands
from pasture.render.artifact import Artifact, header
from pasture.runtime.hostwire.pi import STEERS as PI_STEERS

if TYPE_CHECKING:
    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import DoctorContext
    from pasture.hosts.scenario_sets import Scenario, ScenarioSet
    from pasture.install.managed import ManagedChannel
    from pasture.install.places import Installation, Target
    from pasture.install.session import Session
    from pasture.profile.versions import HostVersion

__all__ = [
    "EXTENSION_FILE",
    "FIX",
    "HOST",
    "Pi",
    "PiCapture",
    "PiLauncher",
    "PiRenderError",
    "agent_dir",
    "pi_artifacts",
]

EXTENSION_FILE = "pasture-lifecycle.ts"
FIX = "pip install --force-reinstall pasture, then pasture install pi again"  # lifecycle.REINSTALL
#: where the runtime's stderr goes when it dies before answering (the extension's report goes to stderr)
HOST_LOG = "stderr of pi"
#: the events whose handler's throw Pi does not catch: a throw there blocks (agent-session.js beforeToolCall)
THROW_BLOCKS = frozenset({"tool_call"})


class PiRenderError(PastureError, ValueError):
    pass


class PiLauncher(HostLauncher):
    host = "pi"
    wire_protocol = "openai-chat"
    default_options = {"model": "fake-model", "extra_args": []}

    def env(self, ctx: RunContext) -> dict[str, str]:
        return {"PI_OFFLINE": "1", "PI_TELEMETRY": "0"}

    def prepare(self, ctx: RunContext) -> None:
        path = ctx.layout.home / ".pi" / "agent" / "models.json"
        doc = json.loads(path.read_text()) if path.is_file() else {}
        doc.setdefault("providers", {})["pasture"] = {
            "baseUrl": ctx.base_url_v1,
            "api": "openai-completions",
            "apiKey": FAKE_API_KEY,
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": ctx.options["model"], "name": "Pasture fake model"}],
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2) + "\n")

    def argv(self, ctx: RunContext) -> list[str]:
        return [
            str(ctx.binary),
            "--offline",
            "--provider",
            "pasture",
            "--model",
            ctx.options["model"],
            "--no-session",
            *ctx.options["extra_args"],
            "-p",
            ctx.prompt,
        ]


def pi_artifacts(contract: Contract) -> list[Artifact]:
    from pasture.render.env import render  # jinja2: only when rendering, not for the registry

    if contract.harness is not Harness.PI:
        raise PiRenderError(f"{contract.id} is not a Pi contract")
    argv_frame(contract, PiRenderError)  # the one-shot argv must still frame every row
    rows = {row.name: _row_view(row) for row in contract.events}
    text = render(
        "pi/extension.ts.j2",
        header=header("//", contract.lifecycle_file),
        contract={
            "id": contract.id,
            "harness": contract.harness.value,
            "hostVersion": str(contract.version),
            "profile": contract.lifecycle_file,
        },
        serve_argv=serve_argv(contract),
        protocol=SERVE_PROTOCOL,
        fix=FIX,
        limits={
            "maxPayloadBytes": MAX_PAYLOAD_BYTES,
            "maxReplyBytes": MAX_REPLY_BYTES,
            "maxStderrBytes": MAX_STDERR_BYTES,
            "startMs": START_MS,
        },
        rows=rows,
        events=[row.name for row in contract.events],
        log_service=LOG_SERVICE,
        host_log=HOST_LOG,
        answers_by_return=True,
    )
    return [Artifact(f"{contract.id}/{EXTENSION_FILE}", text, contract.id)]


def _row_view(row: EventRow) -> dict[str, Any]:
    observation = row.semantic is EventSemantic.OBSERVATION
    throws = row.failure is FailureMode.THROW_FAIL_FAST
    if throws and row.name not in THROW_BLOCKS:
        raise PiRenderError(
            f"{row.name}: Pi catches a throw from its handler and goes on; only {', '.join(sorted(THROW_BLOCKS))} "
            "can declare throw-fail-fast"
        )
    gate = row.semantic is EventSemantic.GATE_CONSULTATION
    refusal = "throw" if gate and throws else "none"
    guards_action = (
        row.pre_action
        and gate
        and (any(ident.kind is IdentityKind.TOOL_CALL for ident in row.identities) or row.response.allows_deny)
    )
    return {
        "surface": row.surface.value,
        "semantic": row.semantic.value,
        "mutation": row.mutation.value,
        "declaredFailure": row.declared_failure.value,
        "failure": row.failure.value,
        "response": row.response.value,
        "refusal": refusal,
        "failFast": throws and not observation,
        "guardsAction": guards_action,
        "timeoutMs": commands.timeout(row) * 1000,
        "evidence": row.evidence,
        "note": row.note,
        # Pi answers by the handler's return value, not by mutating an output object as OpenCode does:
        # the extension returns what the runtime asks for, only on the rows whose captures offer it and
        # only what Pi's hostwire encodes (pasture.runtime.hostwire.pi.STEERS).
        "steers": sorted({capability for capability, _ in row.offered_answers} & set(PI_STEERS)),
    }


def agent_dir(env: Mapping[str, str]) -> Path:
    """``$PI_CODING_AGENT_DIR`` (``~`` expanded), else ``~/.pi/agent`` (Pi's config.js getAgentDir)."""
    from pasture.install.places import home

    value = env.get("PI_CODING_AGENT_DIR")
    if value == "~" or (value or "").startswith("~/"):
        return home(env) / (value or "~")[2:]
    return Path(value) if value else home(env) / ".pi" / "agent"


class PiCapture(CaptureAdapter):
    """A recording extension in ``.pi/extensions/pasture-capture.ts`` subscribes to every event of the
    catalog (or of the committed profiles) and logs each event object. No catalog pass: ``pi.on`` takes
    any name, so the catalog is the typings' (pasture.catalog.pi)."""

    harness = "pi"
    log_name = "extension.jsonl"
    options: dict[str, Any] = {}

    def candidates(self, repo_root: Path) -> list[str]:
        from pasture.hosts.recording import profile_event_names

        names = set(profile_event_names(repo_root, (self.harness,)))
        for path in sorted((Path(repo_root) / "captures").glob("pi@*/catalog.json")):
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            names |= {e["name"] for e in doc.get("events") or [] if isinstance(e, dict) and "name" in e}
        return sorted(names)

    def install(self, run: Run, scenario: Scenario, events: list[str]) -> None:
        folder = run.project / ".pi" / "extensions"
        folder.mkdir(parents=True, exist_ok=True)
        refuse = scenario.channel if scenario.refused_event == "tool_call" else None
        answers = None
        if scenario.answer is not None:
            answers = {scenario.answer.event: scenario.answer.filled(scenario.marker or "")}
        source = pi_recorder_extension(
            run.root / self.log_name, events, refuse=refuse, reason=scenario.reason(), answers=answers
        )
        (folder / "pasture-capture.ts").write_text(source)

    def records(self, run: Run) -> Records:
        from pasture.hosts.recorder import read_records

        out = Records()
        for record in read_records(run.root / self.log_name):
            hook = record.get("hook")
            if isinstance(hook, str):
                out.calls.append(HookRecord(hook, record.get("input")))
        return out

    def catalog_method(self) -> str:
        return (
            "no catalog pass: pi.on takes any event name, so the events are the ExtensionAPI.on overloads of "
            "the shipped typings (captures/<version>/catalog.json); the recording extension subscribes to each"
        )

    def scenario_set(self) -> ScenarioSet:
        from pasture.hosts import scenario_sets as s

        return s.ScenarioSet(base=pi_scenarios(), answer=pi_answer_scenarios())


# Pi's answer wire forms (the result types of ExtensionAPI.on handlers)
W_PI_SYSTEM_PROMPT = "before_agent_start returns {systemPrompt}"
W_PI_CONTENT = "tool_result returns {content}"


def _pi_candidates(row: Any, output: dict[str, Any]) -> list[tuple[str, str]]:
    """A Pi handler answers by what it returns (its result type in the catalog), never by mutating."""
    out = []
    prompt = schema_field(output, "systemPrompt")
    if row.name == "before_agent_start" and prompt is not None and prompt.get("type") == "string":
        out.append(("context", W_PI_SYSTEM_PROMPT))
    content = schema_field(output, "content")
    if row.name == "tool_result" and not row.pre_action and content is not None and content.get("type") == "array":
        out.append(("feedback", W_PI_CONTENT))
    return out


class Pi(PluginFileMembers):
    name = "pi"
    display_name = "Pi"
    surfaces: tuple[HookSurface, ...] = (HookSurface.PI_EXTENSION_EVENT,)
    instructions_file = "AGENTS.md"  # Pi reads AGENTS.md (and CLAUDE.md) from the project and its parents
    # Pi's built-in tools (read, bash, edit, write, grep, find, ls) include none that orchestrates: nothing
    # a runtime profile may bind.
    native_calls: frozenset[str] = frozenset()
    unsupported_operations: Mapping[str, str] = {}  # none (pasture.profile.rules)
    npm_packages: tuple[str, ...] = ("@mariozechner/pi-coding-agent",)
    npm_postinstall: tuple[tuple[str, tuple[str, ...]], ...] = ()
    binary = "pi"
    binary_flag = "--pi-bin"
    binary_env = "PASTURE_PI_BIN"
    catalog_reader = "pi"
    wire = "pi"
    gate_failure = "report-and-continue"
    launcher: HostLauncher = PiLauncher()

    def version_env(self, home: str) -> dict[str, str]:
        return {"PI_OFFLINE": "1"}

    def surface_of(self, bus: bool) -> HookSurface:
        return HookSurface.PI_EXTENSION_EVENT

    def artifacts(self, contract: Contract) -> list[Artifact]:
        return pi_artifacts(contract)

    # install: the extension file is pasture's own (pasture.install.pluginfile); Pi loads project extensions
    # with no trust step.
    adapter_file = EXTENSION_FILE
    install_flags: frozenset[str] = frozenset()
    managed: ManagedChannel | None = (
        None  # no administrator channel: `--managed` refuses, doctor and docs/hosts.md say so
    )

    def target(self, project: Path | None, env: Mapping[str, str]) -> Target:
        from pasture.install.places import Target, project_folder

        if project is not None:
            project = project_folder(project)
            return Target(
                self.name, "project", project / ".pi" / "extensions" / EXTENSION_FILE, project, project=project
            )
        folder = agent_dir(env)
        return Target(self.name, "user", folder / "extensions" / EXTENSION_FILE, folder)

    def pick_contract(
        self, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
    ) -> tuple[str, str]:
        from pasture.install.places import highest_floor

        return highest_floor(self.name, available, version, seen)

    def install(self, session: Session) -> None:
        from pasture.install import pluginfile

        pluginfile.install(session, self.display_name)

    def trust(self, session: Session) -> None:
        return None  # Pi loads project extensions without asking

    # uninstall and doctor's reading of the extension file: PluginFileMembers
    def check_session(self, inst: Installation, ctx: DoctorContext) -> list[Finding]:
        return _check_session(inst, ctx)

    def check_environment(
        self, project: Path | None, env: Mapping[str, str], installs: list[Installation]
    ) -> list[Finding]:
        return []  # Pi has no OS sandbox or deny rules of its own

    # capture, profile new
    capture: CaptureAdapter = PiCapture()
    identity_fields: Mapping[str, str] = {"toolCallId": "tool-call"}
    capture_identity_fields: Mapping[str, str] = identity_fields
    not_events: Mapping[str, str] = {}
    # A tool_call handler is awaited outside Pi's error handling: a throw from it is a refusal Pi reads.
    throw_refuses = True
    tool_matchers = False
    output_in_payload = False
    observation_axes: Mapping[str, Mapping[str, str]] = {
        "pi-extension-event": {
            "order": "sequential-load-order",
            "reconciliation": "none",
            "failure": "report-and-continue",
        }
    }
    gate_axes: Mapping[str, Mapping[str, str]] = {
        "pi-extension-event": {"order": "sequential-load-order", "reconciliation": "sequential-mutation"}
    }

    def answer_candidates(self, row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return _pi_candidates(row, output)

    def lifecycle_payload(self, event: str, payload: Any, bus: bool) -> Any:
        return payload  # the event object, as the extension hands it over

    # install and doctor (per host)

    install_binary_use: str | None = None
    doctor_binary_use: str | None = None
    trust_project_help: str | None = None
    pasture_bin_reader: str | None = None


def _check_session(inst: Installation, ctx: DoctorContext) -> list[Finding]:
    """Pi skips extension discovery when its settings exclude our file (``-<path>`` in ``extensions``) or
    when it runs with ``--no-extensions``; doctor can see the settings."""
    from pasture.doctor.findings import Finding

    target = inst.target
    places = [agent_dir(ctx.env) / "settings.json"]
    if target.project is not None:
        places.append(target.project / ".pi" / "settings.json")
    for settings in places:
        try:
            doc = json.loads(settings.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        listed = doc.get("extensions") if isinstance(doc, dict) else None
        for entry in listed if isinstance(listed, list) else []:
            if isinstance(entry, str) and entry.startswith(("-", "!")) and EXTENSION_FILE in entry:
                return [
                    Finding(
                        "pi-extensions",
                        "off",
                        f"{settings} excludes {entry[1:]!r} from Pi's extensions: Pi will not load pasture's adapter",
                        "pi",
                        fix=f"remove {entry!r} from 'extensions' in {settings}",
                        where=str(settings),
                    )
                ]
    return [
        Finding(
            "pi-extensions",
            "ok",
            "Pi loads this extension at startup with no trust step (unless run with --no-extensions)",
            "pi",
        )
    ]


HOST: Host = Pi()  # mypy checks the class against the Protocol here


# --- what `pasture capture` runs on this host (the scenarios its ScenarioSet is made of) ---------


def pi_scenarios() -> tuple[Scenario, ...]:
    """Pi: an extension's tool_call handler refuses by throwing (documented: "tool_call errors block the tool
    (fail-safe)"), or by returning ``{block: true, reason}``; in both the reason is the blocked call's
    tool result. Pi has no stop refusal channel (agent_end's result is never read)."""
    return (
        ALLOW,
        Scenario(
            "tool-call-throw",
            "the extension throws an Error carrying the reason from its tool_call handler for the bash call",
            PROBE,
            "tool_call",
            "throw",
            False,
        ),
        Scenario(
            "tool-call-block",
            "the extension's tool_call handler returns {block: true, reason} for the bash call",
            PROBE,
            "tool_call",
            "block",
            False,
        ),
    )


def pi_answer_scenarios() -> tuple[Scenario, ...]:
    """Pi: a handler answers by what it returns (ExtensionAPI's result types)."""
    return (
        Scenario(
            "before-agent-start-context",
            "before_agent_start returns a systemPrompt with a text appended; honoured if the text is in the "
            "first request the model receives",
            PROBE,
            answer=Answer(
                "context",
                "before_agent_start",
                W_PI_SYSTEM_PROMPT,
                plugin={"op": "append-system-prompt", "value": "{marker}"},
            ),
        ),
        Scenario(
            "tool-result-feedback",
            "tool_result returns a content with a text after the shell call; honoured if the text is in what "
            "the next request adds after the tool call",
            PROBE,
            answer=Answer(
                "feedback", "tool_result", W_PI_CONTENT, plugin={"op": "return-content", "value": "{marker}"}
            ),
        ),
    )


# --- the recording extension `pasture capture` installs ------------------------------------------

#: How the Pi recording extension can answer (see :func:`pi_recorder_extension`).
PI_ANSWER_OPS = ("append-system-prompt", "return-content")


def pi_recorder_extension(
    log: str | Path,
    events: Sequence[str],
    *,
    refuse: str | None = None,
    tool: str = "bash",
    reason: str = "blocked by pasture recorder",
    answers: dict[str, dict[str, Any]] | None = None,
) -> str:
    """TypeScript source of a Pi project extension (``.pi/extensions/*.ts``) that subscribes to every
    event of ``events`` (``pi.on(name, handler)``) and records each as ``{"hook": name, "input": event}``
    into ``log``. ``refuse``: ``"throw"`` throws ``new Error(reason)`` from ``tool_call`` of ``tool``;
    ``"block"`` returns ``{block: true, reason}`` there. ``answers``: ``{event: {"op": OP, "value": V}}``
    with OP one of :data:`PI_ANSWER_OPS`, once per event (``append-system-prompt``: before_agent_start
    returns ``{systemPrompt: event.systemPrompt + "\\n" + V}``; ``return-content``: tool_result returns
    ``{content: [{type: "text", text: V}]}``). It imports only ``node:fs``. Every string reaches the source
    through :func:`pasture.render.encode.js_literal`."""
    from pasture.render.encode import js_literal

    if refuse not in (None, "throw", "block"):
        raise ValueError("refuse must be None, 'throw' or 'block'")
    for event, spec in (answers or {}).items():
        if spec.get("op") not in PI_ANSWER_OPS:
            raise ValueError(f"{event}: op must be one of {PI_ANSWER_OPS}")
    return f"""// pasture capture: Pi recording extension (generated; records every subscribed event)
import {{ appendFileSync }} from "node:fs"
const LOG = {js_literal(str(log))}
const EVENTS: string[] = {js_literal(list(events))}
const REFUSE = {js_literal(refuse or "")}
const TOOL = {js_literal(tool)}
const REASON = {js_literal(reason)}
const ANSWERS: Record<string, {{ op: string; value: string }}> = {js_literal(answers or {})}
const answered = new Set<string>()
function safe(value: unknown): unknown {{
  try {{ return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? String(v) : v))) }}
  catch (err) {{ return {{ unserializable: String(err) }} }}
}}
export default function (pi: any) {{
  for (const name of EVENTS) {{
    pi.on(name, async (event: any) => {{
      appendFileSync(LOG, JSON.stringify({{ hook: name, input: safe(event) }}) + "\\n")
      if (name === "tool_call" && event && event.toolName === TOOL) {{
        if (REFUSE === "throw") throw new Error(REASON)
        if (REFUSE === "block") return {{ block: true, reason: REASON }}
      }}
      const answer = Object.prototype.hasOwnProperty.call(ANSWERS, name) ? ANSWERS[name] : undefined
      if (answer !== undefined && !answered.has(name)) {{
        answered.add(name)
        if (answer.op === "append-system-prompt") {{
          return {{ systemPrompt: String(event.systemPrompt) + "\\n" + answer.value }}
        }}
        if (answer.op === "return-content") return {{ content: [{{ type: "text", text: answer.value }}] }}
      }}
      return undefined
    }})
  }}
}}
"""
