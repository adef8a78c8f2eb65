"""OpenCode: its adapter (one self-contained TypeScript plugin per contract, v1 (1.x) or v2 (2.x) by host
major), its catalog (the plugin and SDK typings, parsed by pasture.catalog.opencode), and its offline run.
Answers on the hook path: pasture/runtime/hostwire/opencode.py.

Protocol between the generated plugin and the runtime (the plugin side is
templates/opencode/_runtime.ts.j2; the server side, and the wire format in full, is
pasture/runtime/serve.py)
==================================================================================================

Spawn. ONE process per plugin instance (OpenCode starts one instance per project directory), at
plugin init, with an argv array (never a shell string)::

    [<binary>, "hook", "serve", "--harness", "opencode", "--host-version", <contract version>]

``<binary>`` is ``$PASTURE_BIN`` if set, else ``<data>/pasture/bin/pasture-hook`` (the launcher
``pasture install`` writes; ``<data>`` is an absolute ``$XDG_DATA_HOME`` or ``~/.local/share``) if
it exists, else ``pasture`` on PATH. It runs detached (a session of its own, so the host's process
group can be killed without losing what it was handed) and unref'd (it never keeps the host
alive). The working directory is the plugin instance's project directory when the host gives one
(1.x: ``PluginInput.directory``; 2.x: ``ctx.location.directory`` if present), else the host's own.
The environment is the host's, unchanged.

Lines. The runtime's first line is a handshake naming the events that need an answer (``await``);
then the plugin writes one request line per hook call or bus event and the runtime one reply line
per request (``{"id", "exit", "stdout", "stderr", ...}``: what ``pasture hook lifecycle`` would
have exited with and printed for it). The request's payload is what the one-shot runtime read on
stdin:

* 1.x named hook (surface ``opencode-named-output``):
  ``{"event": <native name>, "input": <hook input>, "output": <hook output>}``
* 1.x bus event (surface ``opencode-catch-all-sse``, the ``event`` hook; only the declared types):
  ``{"event": <event type>, "input": <bus event {id, type, properties}>}``
* 2.x hook (``ctx.<domain>.hook(<name>)``; native name is ``<domain>.<name>``): the host passes a
  single mutable event object, sent as ``{"event": <native name>, "input": <event>}``.
* 2.x bus event (``ctx.event.subscribe(<type>)``): ``{"event": <type>, "input": <event>}``.

Values JSON cannot carry are encoded as JSON.stringify does (functions dropped, a ``Request`` or
``Response`` becomes ``{}``), except BigInt (a decimal string) and a reference cycle (the string
``"[Circular]"``). A payload over 16 MiB is sent as a ``payload_error`` instead.

Answer (a reply's stdout): ``{"decision": "proceed"}``, or ``{"decision": "deny" | "ask",
"reason": "<non-empty text>"}``; other keys are ignored. A non-zero ``exit``, stdout that is not
one such object, no reply within the row's timeout (``commands.timeout``: 10 s for observations,
60 s otherwise, unless the row sets one; ``PASTURE_HOOK_TIMEOUT_MS`` (1..600000) overrides it), or
the runtime dying with the request open is a runtime failure. stderr is logged (at most 8 KiB),
never shown to the model.

Waiting. A row is only ever awaited if it can act on the answer (``refusal`` is not "none", or it
fails fast) and the runtime's current ``await`` set names it; everything else is written and
forgotten (the bus and observation rows always), and still journaled. Until the handshake arrives a
gate row waits for it (within its timeout).

What the plugin does with the answer is fixed per row (``_row_view``):

* ``refusal: "throw"`` (semantic gate-consultation, effective failure throw-fail-fast): deny or ask
  throws ``new Error(reason)``, the only refusal channel in 1.x (the model sees exactly the
  reason). There is no way to ask a human from these hooks, so ask refuses like deny.
* ``refusal: "effect"`` (2.x ``permission.evaluate`` with cited deny evidence): deny sets
  ``event.effect = "deny"`` and ``event.message = reason``; ask does the same unless the row's
  response capability includes ask, then it sets ``"ask"``.
* ``failFast`` (effective failure throw-fail-fast and not an observation): a runtime failure throws
  (the message names the event and the kind of failure, never stderr); on every other row it is
  logged and the host proceeds.
* Observation rows and bus rows never throw and never write.
* The decision carries no mutation yet: no row writes to its hook output (``output.args`` and the
  rest stay untouched) whatever its mutation mode allows; the only write is the ``effect`` refusal
  above, on a row whose mutation mode is output or output-object.

No runtime. If the runtime cannot be started, says in its handshake that it cannot run (exit 70:
its own tables do not load), sends no handshake within 10 s (``PASTURE_HOOK_START_MS``), or dies,
it is started again once. After that it is unavailable: a
fail-fast row that ``guardsAction`` (a pre-action gate row carrying a tool-call identity, or with a
cited deny response: the tool and permission rows) throws ``pasture refused <event>: <one line
naming what is missing>; fix: <command>``; every other row logs that line once and proceeds. A
throw from a conversation row (chat.message, chat.params, the transforms, tool.definition) only
ends the prompt with OpenCode's own "Unexpected server error. Check server logs for details."
(1.18.33, before the first model call: the cause of issue 9's report), so the user would never read
the fix; every action the model then tries is still refused, with it.

Offline run: headless (``opencode run``) against the fake OpenAI Chat Completions server.

* **Config:** ``<project>/opencode.json`` names a provider ``harness`` using the bundled
  ``@ai-sdk/openai-compatible`` package with ``baseURL = http://127.0.0.1:PORT/v1`` and a fake
  key; ``model`` and ``small_model`` are ``harness/<model>``; only that provider is enabled;
  ``permission`` allows bash and edit; no autoupdate, no sharing. The ``config`` option is
  deep-merged over it (e.g. ``{"permission": {"bash": "ask"}}``).
* **Env:** ``OPENCODE_DISABLE_{AUTOUPDATE,MODELS_FETCH,LSP_DOWNLOAD,SHARE,CLAUDE_CODE,DEFAULT_PLUGINS}=1``.
* **Startup install (obstacle O1):** at startup OpenCode npm-installs ``@opencode-ai/plugin`` into
  every config dir (``<project>/.opencode`` and ``$XDG_CONFIG_HOME/opencode``); offline that
  retries for ~70 s. It skips the install when ``node_modules/`` exists and ``package-lock.json``
  already names the package, so with ``stub_plugin_install=True`` (default) both dirs get an empty
  ``node_modules/`` and a stub lock, unless a ``package-lock.json`` is already there. Plugins must
  then import nothing from ``@opencode-ai/plugin`` at run time (type-only imports are fine).
* **Plugins:** local files ``<project>/.opencode/plugins/*.{js,ts}`` are auto-discovered; a test
  writes them itself. Never pass ``--pure``: it disables local plugins too.
* **Command:** ``opencode run --format json --print-logs --log-level <level> <prompt words...>``;
  the prompt goes as separate words because ``run`` wraps an argument containing spaces in quotes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from pasture import PastureError
from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext
from pasture.hosts.members import PluginFileMembers
from pasture.hosts.protocol import Host
from pasture.hosts.recording import CaptureAdapter, HookRecord, Records, Run, profile_event_names
from pasture.hosts.scenario_sets import (
    ALLOW,
    ASKED_COMMAND,
    PROBE,
    PROBE_COMMAND,
    REWRITE,
    STOP,
    Answer,
    Scenario,
)
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
from pasture.profile.answers import schema_field, schema_offers
from pasture.profile.contracts import Contract, EventRow
from pasture.profile.vocab import EventSemantic, FailureMode, Harness, HookSurface, IdentityKind, MutationMode
from pasture.render import commands
from pasture.render.artifact import Artifact, header
from pasture.runtime.hostwire.opencode import HEADLESS

if TYPE_CHECKING:
    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import DoctorContext
    from pasture.hosts.scenario_sets import Scenario, ScenarioSet
    from pasture.install.managed import ManagedChannel
    from pasture.install.places import Installation, Target
    from pasture.install.session import Session
    from pasture.profile.versions import HostVersion

__all__ = [
    "FIX",
    "HOST",
    "PLUGIN_FILE",
    "OpenCode",
    "OpenCodeCapture",
    "OpenCodeLauncher",
    "OpenCodeRenderError",
    "deep_merge",
    "opencode_artifacts",
    "serve_argv",
]

DEFAULT_PLUGIN_VERSION = "1.18.33"


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _opencode_version(binary: Path) -> str:
    """The opencode-ai package version next to the binary (the plugin version it installs)."""
    try:
        manifest = Path(binary).parent.parent / "opencode-ai" / "package.json"
        return str(json.loads(manifest.read_text())["version"])
    except (OSError, KeyError, ValueError):
        return DEFAULT_PLUGIN_VERSION


class OpenCodeLauncher(HostLauncher):
    host = "opencode"
    wire_protocol = "openai-chat"
    default_options = {
        "model": "fake-model",
        "config": {},
        "log_level": "INFO",
        "stub_plugin_install": True,
        "extra_args": [],
    }

    def config(self, ctx: RunContext) -> dict[str, Any]:
        model = ctx.options["model"]
        base = {
            "$schema": "https://opencode.ai/config.json",
            "provider": {
                "harness": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Pasture fake model (127.0.0.1)",
                    "options": {"baseURL": ctx.base_url_v1, "apiKey": FAKE_API_KEY},
                    "models": {model: {"name": "Fake model", "tool_call": True}},
                }
            },
            "model": f"harness/{model}",
            "small_model": f"harness/{model}",
            "enabled_providers": ["harness"],
            "permission": {"bash": "allow", "edit": "allow"},
            "autoupdate": False,
            "share": "disabled",
        }
        return deep_merge(base, ctx.options["config"])

    def env(self, ctx: RunContext) -> dict[str, str]:
        return {
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_CLAUDE_CODE": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        }

    def prepare(self, ctx: RunContext) -> None:
        (ctx.layout.project / "opencode.json").write_text(json.dumps(self.config(ctx), indent=2) + "\n")
        if ctx.options["stub_plugin_install"]:
            version = _opencode_version(ctx.binary)
            stub = {"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": version}}}}
            for config_dir in (ctx.layout.project / ".opencode", ctx.layout.xdg_config / "opencode"):
                (config_dir / "node_modules").mkdir(parents=True, exist_ok=True)
                lock = config_dir / "package-lock.json"
                if not lock.exists():
                    lock.write_text(json.dumps(stub) + "\n")

    def argv(self, ctx: RunContext) -> list[str]:
        return [
            str(ctx.binary),
            *HEADLESS,
            "--print-logs",
            "--log-level",
            ctx.options["log_level"],
            *list(ctx.options["extra_args"]),
            *ctx.prompt.split(),
        ]


PLUGIN_FILE = "pasture-lifecycle.ts"
PLUGIN_ID = "pasture-lifecycle"
# 1.x loads every export of the module as a plugin function: this is the only one.
V1_EXPORT = "PastureLifecycle"

FIX = "pip install --force-reinstall pasture, then pasture install opencode again"  # lifecycle.REINSTALL

# 2.x registers hooks per domain of the plugin context: ctx.session.hook("prompt"), ...
V2_HOOK_DOMAINS = ("session", "tool", "permission", "shell")
# 2.x hooks whose event carries a host-honoured decision field (packages/core/src/permission.ts:
# evaluateInput returns event.effect and event.message to the caller).
V2_EFFECT_HOOKS = frozenset({"permission.evaluate"})


class OpenCodeRenderError(PastureError, ValueError):
    pass


@dataclass(frozen=True)
class _Hook:
    name: str  # native name, e.g. "tool.execute.before"
    domain: str  # 2.x only: "tool"
    hook: str  # 2.x only: "execute.before"
    refusal: str


def opencode_artifacts(contract: Contract) -> list[Artifact]:
    from pasture.render.env import render  # jinja2: only when rendering, not for the registry

    if contract.harness is not Harness.OPENCODE:
        raise OpenCodeRenderError(f"{contract.id} is not an OpenCode contract")
    major = contract.version.major
    if major == 1:
        template = "opencode/plugin-v1.ts.j2"
    elif major == 2:
        template = "opencode/plugin-v2.ts.j2"
    else:
        raise OpenCodeRenderError(
            f"{contract.lifecycle_file}: no OpenCode plugin flavour for host major version {major} "
            "(1.x: Hooks object, 2.x: Plugin.define)"
        )
    view = _view(contract, major)
    text = render(template, **view)
    return [Artifact(f"{contract.id}/{PLUGIN_FILE}", text, contract.id)]


def _view(contract: Contract, major: int) -> dict[str, Any]:
    rows = {row.name: _row_view(contract, row, major) for row in contract.events}
    named = [
        _hook(row, rows[row.name]["refusal"], major)
        for row in contract.events
        if row.surface is HookSurface.OPENCODE_NAMED_OUTPUT
    ]
    bus = [row.name for row in contract.events if row.surface is HookSurface.OPENCODE_CATCH_ALL_SSE]
    # the one-shot argv must still frame every row (the command hosts' contract)
    argv_frame(contract, OpenCodeRenderError)
    return {
        "header": header("//", contract.lifecycle_file),
        "contract": {
            "id": contract.id,
            "harness": contract.harness.value,
            "hostVersion": str(contract.version),
            "profile": contract.lifecycle_file,
        },
        "serve_argv": serve_argv(contract),
        "protocol": SERVE_PROTOCOL,
        "fix": FIX,
        "limits": {
            "maxPayloadBytes": MAX_PAYLOAD_BYTES,
            "maxReplyBytes": MAX_REPLY_BYTES,
            "maxStderrBytes": MAX_STDERR_BYTES,
            "startMs": START_MS,
        },
        "rows": rows,
        "named": named,
        "bus": bus,
        "plugin_id": PLUGIN_ID,
        "v1_export": V1_EXPORT,
        "log_service": LOG_SERVICE,
    }


def _row_view(contract: Contract, row: EventRow, major: int) -> dict[str, Any]:
    bus = row.surface is HookSurface.OPENCODE_CATCH_ALL_SSE
    observation = row.semantic is EventSemantic.OBSERVATION
    throws = row.failure is FailureMode.THROW_FAIL_FAST
    fail_fast = throws and not observation and not bus
    refusal = "none"
    if not bus and row.semantic is EventSemantic.GATE_CONSULTATION:
        if (
            major == 2
            and row.name in V2_EFFECT_HOOKS
            and row.response.allows_deny
            and row.mutation in (MutationMode.OUTPUT, MutationMode.OUTPUT_OBJECT)
        ):
            refusal = "effect"
        elif throws:
            refusal = "throw"
    guards_action = (
        row.pre_action
        and row.semantic is EventSemantic.GATE_CONSULTATION
        and not bus
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
        "failFast": fail_fast,
        "guardsAction": guards_action,
        "timeoutMs": commands.timeout(row) * 1000,
        "evidence": row.evidence,
        "note": row.note,
        "steers": sorted({capability for capability, _ in row.offered_answers}),
    }


def _hook(row: EventRow, refusal: str, major: int) -> _Hook:
    if major == 1:
        return _Hook(row.name, "", "", refusal)
    domain, _, hook = row.name.partition(".")
    if domain not in V2_HOOK_DOMAINS or not hook:
        raise OpenCodeRenderError(
            f"{row.name!r}: a 2.x hook name is <domain>.<hook> with domain one of {', '.join(V2_HOOK_DOMAINS)}"
        )
    return _Hook(row.name, domain, hook, refusal)


class OpenCodeCapture(CaptureAdapter):
    """OpenCode calls a plugin's hooks by looking them up on the object the plugin returns; the recording
    plugin answers with a Proxy that records every lookup, so every hook name the host asks for is seen,
    and every bus event arrives through the catch-all ``event`` hook. No catalog pass."""

    harness = "opencode"
    log_name = "plugin.jsonl"
    options: dict[str, Any] = {}

    def candidates(self, repo_root: Path) -> list[str]:
        named = set(profile_event_names(repo_root, (self.harness,), "opencode-named-output"))
        return sorted(named | set(OPENCODE_RECORDED_HOOKS))

    def install(self, run: Run, scenario: Scenario, events: list[str]) -> None:
        plugins = run.project / ".opencode" / "plugins"
        plugins.mkdir(parents=True, exist_ok=True)
        block = "bash" if scenario.channel == "throw" else None
        answers = None
        if scenario.answer is not None:
            answers = {scenario.answer.event: scenario.answer.filled(scenario.marker or "")}
        source = opencode_recorder_plugin(
            run.root / self.log_name,
            block_tool=block,
            reason=scenario.reason(),
            hooks=events,
            discover=True,
            answers=answers,
        )
        (plugins / "pasture-capture.js").write_text(source)

    def records(self, run: Run) -> Records:
        from pasture.hosts.recorder import read_records

        out = Records()
        for record in read_records(run.root / self.log_name):
            hook = record.get("hook")
            if hook == "plugin.init":
                out.plugin_init = record.get("input")
            elif hook == "plugin.lookup":
                name = (record.get("input") or {}).get("name")
                if isinstance(name, str) and name not in out.lookups:
                    out.lookups.append(name)
            elif hook == "event":
                event = (record.get("input") or {}).get("event") or {}
                out.calls.append(HookRecord(str(event.get("type")), event, bus=True))
            elif isinstance(hook, str):
                out.calls.append(HookRecord(hook, {"input": record.get("input"), "output": record.get("output")}))
        return out

    def catalog_method(self) -> str:
        return (
            "the recording plugin's hooks object is a Proxy that records every hook name the host looks "
            "up; bus events arrive through the catch-all event hook"
        )

    def scenario_set(self) -> ScenarioSet:
        from pasture.hosts import scenario_sets as s

        return s.ScenarioSet(base=plugin_host_scenarios(), answer=plugin_answer_scenarios())


# OpenCode's answer wire forms (its plugin hooks' output objects)
W_OC_SET_ARG = "output.args.<field> set in place"
W_OC_NEW_ARGS = "output.args replaced by a new object"
W_OC_STATUS = "output.status=allow"
W_OC_SYSTEM = "output.system.push(text)"
W_OC_OUTPUT = "output.output edited"


def _opencode_candidates(row: Any, output: dict[str, Any]) -> list[tuple[str, str]]:
    if row.mutation is not MutationMode.OUTPUT_OBJECT:
        return []  # an OpenCode hook answers only by mutating its output object
    out = []
    if row.pre_action and schema_offers(output, "status", "allow"):
        out.append(("allow", W_OC_STATUS))
    if row.pre_action and schema_field(output, "args") is not None:
        out += [("rewrite", W_OC_SET_ARG), ("rewrite", W_OC_NEW_ARGS)]
    system = schema_field(output, "system")
    if system is not None and system.get("type") == "array":
        out.append(("context", W_OC_SYSTEM))
    result = schema_field(output, "output")
    if not row.pre_action and result is not None and result.get("type") == "string":
        out.append(("feedback", W_OC_OUTPUT))
    return out


class OpenCode(PluginFileMembers):
    name = "opencode"
    display_name = "OpenCode"
    surfaces: tuple[HookSurface, ...] = (HookSurface.OPENCODE_NAMED_OUTPUT, HookSurface.OPENCODE_CATCH_ALL_SSE)
    instructions_file = "AGENTS.md"  # where the generated agent instructions go
    native_calls = frozenset({"skill", "task", "question"})
    # its runtime profile must bind these unsupported (pasture.profile.rules)
    unsupported_operations: Mapping[str, str] = {
        "stop_assignment": "OpenCode documents no tool that stops a running assignment"
    }
    npm_packages: tuple[str, ...] = ("opencode-ai", "@opencode-ai/plugin")
    npm_postinstall: tuple[tuple[str, tuple[str, ...]], ...] = (("opencode-ai", ("node", "postinstall.mjs")),)
    binary = "opencode"
    binary_flag = "--opencode-bin"
    binary_env = "PASTURE_OPENCODE_BIN"
    catalog_reader = "opencode"
    wire = "opencode"
    gate_failure = "report-and-continue"
    launcher: HostLauncher = OpenCodeLauncher()

    def version_env(self, home: str) -> dict[str, str]:
        return {"OPENCODE_DISABLE_AUTOUPDATE": "1"}

    def surface_of(self, bus: bool) -> HookSurface:
        return HookSurface.OPENCODE_CATCH_ALL_SSE if bus else HookSurface.OPENCODE_NAMED_OUTPUT

    def artifacts(self, contract: Contract) -> list[Artifact]:
        return opencode_artifacts(contract)

    # install: the plugin file is pasture's own (pasture.install.pluginfile); OpenCode loads project plugins
    # with no trust step, from plugin/ and plugins/ both.
    adapter_file = PLUGIN_FILE
    install_flags: frozenset[str] = frozenset()
    managed: ManagedChannel | None = (
        None  # no administrator channel: `--managed` refuses, doctor and docs/hosts.md say so
    )

    def target(self, project: Path | None, env: Mapping[str, str]) -> Target:
        from pasture.install.places import Target, project_folder, xdg_config

        if project is not None:
            project = project_folder(project)
            return Target(
                self.name, "project", project / ".opencode" / "plugins" / PLUGIN_FILE, project, project=project
            )
        folder = xdg_config(env) / "opencode"  # its user folder
        return Target(self.name, "user", folder / "plugins" / PLUGIN_FILE, folder.parent)

    def pick_contract(
        self, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
    ) -> tuple[str, str]:
        """1.x and 2.x plugin APIs are incompatible: the newest contract of the installed major version,
        else (the version cannot be told) the newest 1.x contract, said so."""
        from pasture.install.places import TargetError

        major = None if version is None else version.major
        wanted = major if major is not None else 1
        matching = [cid for v, cid in available if v.major == wanted]
        if not matching:
            ids = ", ".join(cid for _v, cid in available)
            raise TargetError(f"{seen}; no OpenCode {wanted}.x contract (known: {ids}); pass --contract ID")
        if major is None:
            return matching[
                -1
            ], f"{seen}: assuming OpenCode 1.x, the newest 1.x contract; choose another with --contract"
        return matching[-1], f"{seen}: the newest OpenCode {major}.x contract"

    def install(self, session: Session) -> None:
        from pasture.install import pluginfile

        pluginfile.install(session, self.display_name, siblings=("plugin", "plugins"))

    def trust(self, session: Session) -> None:
        return None

    # uninstall and doctor's reading of the plugin file: PluginFileMembers
    def check_session(self, inst: Installation, ctx: DoctorContext) -> list[Finding]:
        return []

    def check_environment(
        self, project: Path | None, env: Mapping[str, str], installs: list[Installation]
    ) -> list[Finding]:
        return []  # OpenCode has no OS sandbox of its own

    # capture, profile new
    capture: CaptureAdapter = OpenCodeCapture()
    identity_fields: Mapping[str, str] = {
        "sessionID": "session",
        "callID": "tool-call",
        "messageID": "message",
        "requestID": "request",
    }
    capture_identity_fields: Mapping[str, str] = identity_fields
    not_events: Mapping[str, str] = {
        "config": "the plugin configuration hook, not a lifecycle event; its payload is the whole config, "
        "provider API keys included, which must never reach the journal",
        "event": "the catch-all bus hook itself; the bus events it delivers are rows of their own",
    }
    # A named hook is awaited, and a throw from it is the decision the host reads (1.x has no refusal field).
    throw_refuses = True
    tool_matchers = False
    output_in_payload = True

    observation_axes: Mapping[str, Mapping[str, str]] = {
        "opencode-catch-all-sse": {"order": "observation-stream", "reconciliation": "none", "failure": "observe-only"},
        "opencode-named-output": {
            "order": "sequential-load-order",
            "reconciliation": "none",
            "failure": "report-and-continue",
        },
    }
    gate_axes: Mapping[str, Mapping[str, str]] = {
        "opencode-named-output": {"order": "sequential-load-order", "reconciliation": "sequential-mutation"}
    }

    def answer_candidates(self, row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return _opencode_candidates(row, output) if row.surface is HookSurface.OPENCODE_NAMED_OUTPUT else []

    def lifecycle_payload(self, event: str, payload: Any, bus: bool) -> Any:
        """The plugin hands the runtime ``{event, input[, output]}``."""
        if bus:
            return {"event": event, "input": payload}
        if isinstance(payload, dict):
            return {"event": event, "input": payload.get("input"), "output": payload.get("output")}
        return {"event": event, "input": payload}

    # install and doctor (per host)

    install_binary_use: str | None = "asked for its version"
    doctor_binary_use: str | None = None
    trust_project_help: str | None = None
    pasture_bin_reader: str | None = "the OpenCode plugin"


HOST: Host = OpenCode()  # mypy checks the class against the Protocol here


# --- what `pasture capture` runs on this host (the scenarios its ScenarioSet is made of) ---------


def plugin_host_scenarios() -> tuple[Scenario, ...]:
    """OpenCode: the plugin refuses by throwing from tool.execute.before; 1.x offers no stop refusal channel."""
    return (
        ALLOW,
        Scenario(
            "tool-execute-before-throw",
            "the plugin throws from tool.execute.before for the bash call",
            PROBE,
            "tool.execute.before",
            "throw",
            False,
        ),
        Scenario(
            "stop",
            "the model answers without a tool and the host stops (OpenCode 1.x offers no stop refusal channel)",
            STOP,
        ),
    )


def plugin_answer_scenarios() -> tuple[Scenario, ...]:
    return (
        Scenario(
            "tool-execute-before-rewrite",
            "tool.execute.before sets output.args.command in place (the model "
            f"asked for {ASKED_COMMAND}); the rewritten command must be the one that ran",
            REWRITE,
            answer=Answer(
                "rewrite",
                "tool.execute.before",
                W_OC_SET_ARG,
                plugin={"op": "set-arg", "tool": "bash", "field": "command", "value": PROBE_COMMAND},
            ),
        ),
        Scenario(
            "tool-execute-before-new-args",
            "tool.execute.before assigns a new output.args object with the "
            "rewritten command; honoured only if that command is the one that ran",
            REWRITE,
            answer=Answer(
                "rewrite",
                "tool.execute.before",
                W_OC_NEW_ARGS,
                plugin={
                    "op": "replace-args",
                    "tool": "bash",
                    "value": {"command": PROBE_COMMAND, "description": "Write the pasture probe file"},
                },
            ),
        ),
        Scenario(
            "no-answer-approval",
            "control for the allow answer: permission bash = ask, nothing answers; "
            "opencode run auto-rejects what would need a prompt, so the call must not run",
            PROBE,
            options=(("config", {"permission": {"bash": "ask"}}),),
        ),
        Scenario(
            "permission-ask-allow",
            "permission bash = ask; the plugin's permission.ask hook sets "
            "output.status allow; honoured if the call runs without a prompt",
            PROBE,
            options=(("config", {"permission": {"bash": "ask"}}),),
            control="no-answer-approval",
            answer=Answer("allow", "permission.ask", W_OC_STATUS, plugin={"op": "set-status", "value": "allow"}),
        ),
        Scenario(
            "system-transform-context",
            "experimental.chat.system.transform pushes a text into "
            "output.system; honoured if the text is in the first request the model receives",
            PROBE,
            answer=Answer(
                "context",
                "experimental.chat.system.transform",
                W_OC_SYSTEM,
                plugin={"op": "push-system", "value": "{marker}"},
            ),
        ),
        Scenario(
            "tool-execute-after-feedback",
            "tool.execute.after appends a text to output.output after the "
            "shell call; honoured if the text is in what the next request adds after the tool call",
            PROBE,
            answer=Answer(
                "feedback",
                "tool.execute.after",
                W_OC_OUTPUT,
                plugin={"op": "append-output", "tool": "bash", "value": "\n{marker}"},
            ),
        ),
    )


# --- the recording plugin `pasture capture` and the real-host tests install -----------------------

#: The named hooks the OpenCode recording plugin registers unless told otherwise.
OPENCODE_RECORDED_HOOKS = (
    "event",
    "config",
    "chat.message",
    "chat.params",
    "chat.headers",
    "permission.ask",
    "command.execute.before",
    "tool.execute.before",
    "tool.execute.after",
    "shell.env",
    "experimental.chat.system.transform",
)


#: How the recording plugin can answer (see :func:`opencode_recorder_plugin`).
OPENCODE_ANSWER_OPS = ("set-arg", "replace-args", "append-output", "push-system", "set-status")


def opencode_recorder_plugin(
    log: str | Path,
    *,
    block_tool: str | None = None,
    reason: str = "blocked by pasture recorder",
    export_name: str = "PastureRecorder",
    hooks: Sequence[str] | None = None,
    discover: bool = False,
    answers: dict[str, dict[str, Any]] | None = None,
) -> str:
    """JavaScript source of a local OpenCode plugin that records every hook call into ``log``.

    It imports only ``node:fs`` (nothing from ``@opencode-ai/plugin``) and exports exactly one
    plugin function. With ``block_tool`` it throws ``reason`` from ``tool.execute.before`` for that
    tool. ``hooks`` names the hooks it registers (default :data:`OPENCODE_RECORDED_HOOKS`). With
    ``discover`` the plugin's hooks object is a Proxy: every property the host looks up is recorded
    as ``{"hook": "plugin.lookup", "name"}``, and ``event``, ``config``, every name in ``hooks`` and
    every dotted name the host asks for (OpenCode's hook names are dotted) get a recording hook, so
    hooks missing from ``hooks`` show up too.

    ``answers`` makes hooks answer by mutating their ``output`` after recording it, once per call:
    ``{hook: {"op": OP, "value": V, "tool"?: name, "field"?: name}}`` with OP one of
    :data:`OPENCODE_ANSWER_OPS` (``set-arg``: ``output.args[field] = V`` in place; ``replace-args``:
    ``output.args = V``, a new object; ``append-output``: ``output.output += V``; ``push-system``:
    ``output.system.push(V)``; ``set-status``: ``output.status = V``); ``tool`` limits a tool hook
    to that tool.
    """
    for hook_name, spec in (answers or {}).items():
        if spec.get("op") not in OPENCODE_ANSWER_OPS:
            raise ValueError(f"{hook_name}: op must be one of {OPENCODE_ANSWER_OPS}")
    names = list(OPENCODE_RECORDED_HOOKS if hooks is None else hooks)
    if not discover:
        body = f"""  const hooks = {{}}
  for (const name of {json.dumps(names)}) {{
    hooks[name] = hook(name)
  }}
  return hooks"""
    else:
        body = f"""  const known = new Set({json.dumps(names)})
  const made = {{}}
  return new Proxy({{}}, {{
    get(_target, name) {{
      if (typeof name !== "string") return undefined
      record("plugin.lookup", {{ name }}, null)
      if (name === "then") return undefined
      if (!(known.has(name) || name === "event" || name === "config" || name.includes("."))) return undefined
      if (!made[name]) made[name] = hook(name)
      return made[name]
    }},
  }})"""
    return f"""// pasture hostenv recording plugin (generated)
import {{ appendFileSync }} from "node:fs"

const LOG = {json.dumps(str(log))}
const BLOCK_TOOL = {json.dumps(block_tool)}
const REASON = {json.dumps(reason)}
const ANSWERS = {json.dumps(answers or {}, sort_keys=True)}

function safe(value) {{
  const seen = new WeakSet()
  return JSON.parse(JSON.stringify(value, (key, v) => {{
    if (typeof v === "function") return undefined
    if (typeof v === "bigint") return String(v)
    if (v && typeof v === "object") {{
      if (seen.has(v)) return "[circular]"
      seen.add(v)
    }}
    return v
  }}) ?? "null")
}}

function record(hook, input, output) {{
  let line
  try {{
    line = JSON.stringify({{ hook, time: Date.now(), input: safe(input), output: safe(output) }})
  }} catch (err) {{
    line = JSON.stringify({{ hook, time: Date.now(), error: String(err) }})
  }}
  appendFileSync(LOG, line + "\\n")
}}

function hook(name) {{
  return async (input, output) => {{
    record(name, input, output)
    if (name === "tool.execute.before" && BLOCK_TOOL !== null && input && input.tool === BLOCK_TOOL) {{
      throw new Error(REASON)
    }}
    const answer = ANSWERS[name]
    if (answer && output && !(answer.tool && (!input || input.tool !== answer.tool))) {{
      if (answer.op === "set-arg") output.args[answer.field] = answer.value
      else if (answer.op === "replace-args") output.args = answer.value
      else if (answer.op === "append-output") output.output = String(output.output ?? "") + answer.value
      else if (answer.op === "push-system") output.system.push(answer.value)
      else if (answer.op === "set-status") output.status = answer.value
    }}
  }}
}}

export const {export_name} = async (ctx) => {{
  record("plugin.init", {{ keys: Object.keys(ctx), directory: ctx.directory, worktree: ctx.worktree,
                          project: ctx.project }}, null)
{body}
}}
"""
