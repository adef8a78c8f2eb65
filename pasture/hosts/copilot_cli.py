"""GitHub Copilot CLI: its adapter (a ``.github/hooks/*.json`` hooks file, the same schema inline in
``~/.copilot/settings.json``), its catalog (the SDK hook typings and the hook runtime's event names in the
package the native binary unpacks, read by pasture.catalog.copilot), and its offline run.

Answers on the hook path: pasture/runtime/hostwire/copilot_cli.py.

**Hooks file.** ``{"version": 1, "hooks": {"<event>": [{"type": "command", "bash": "<sh>", "timeoutSec": n}]}}``
(docs/new-hosts.md: the format Copilot 1.0.102 loaded; ``copilot help config``: inline ``hooks`` in
settings.json take the same schema). There are no matcher groups: every handler sees every tool.

**Fail closed.** Copilot denies a preToolUse whose hook exits 2 (the model reads only "hook exited with
code 2") or 1 ("hook errored"), and runs the tool when the hook outlives ``timeoutSec``, saying
nothing. So a row that blocks by exit code gets a tail that, for any failure of the runtime other
than its own exit 2, answers the event's JSON refusal on stdout itself, with the one line saying what
is wrong as the reason the model reads (exit 0: the channel that carries it). The runtime answers
before ``timeoutSec`` on its own (pasture.runtime.deadline: the row's timeout minus a margin).

Offline run: headless (``copilot -p``) in offline BYOK mode against the fake Chat Completions server.

* **Env:** ``COPILOT_OFFLINE=true``, ``COPILOT_PROVIDER_BASE_URL`` = the fake's ``/v1``, a fake
  ``COPILOT_PROVIDER_API_KEY``, ``COPILOT_MODEL``, ``COPILOT_AUTO_UPDATE=false``.
* **Trust** (project hooks load only in a trusted folder; otherwise none runs and nothing is said):
  ``trust="flag"`` (default) passes ``--trust-folder``; ``trust="persist"`` writes the project into
  ``~/.copilot/config.json`` ``trustedFolders`` (what the interactive dialog keeps); ``trust="none"``
  does neither.
* **Command:** ``copilot -p PROMPT --allow-all-tools --no-auto-update --disable-client-telemetry``.
* **Cache:** on a fresh HOME the native binary unpacks its package (about 235 MB) into
  ``$XDG_CACHE_HOME/copilot/pkg/``; callers delete it after a run (:func:`drop_unpacked`).
"""

from __future__ import annotations

import json
import shlex
import shutil

from pasture import PastureError
from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext, RunLayout
from pasture.hosts.protocol import Host
from pasture.profile.contracts import Contract, EventRow
from pasture.profile.vocab import HookSurface
from pasture.render import commands
from pasture.render.artifact import Artifact
from pasture.render.encode import shell_words

__all__ = [
    "ACCEPTED_EVENTS",
    "HOST",
    "HOOKS_FILE",
    "CopilotCli",
    "CopilotEventError",
    "CopilotLauncher",
    "copilot_artifacts",
    "drop_unpacked",
    "handler",
    "hooks_document",
    "shell_command",
]

#: Where ``pasture install --project`` puts the adapter (Copilot reads every ``*.json`` there).
HOOKS_FILE = ".github/hooks/pasture.json"

#: The hook event names of Copilot's hook runtime (the strings of prebuilds/linux-x64/runtime.node in
#: 1.0.102; pasture.catalog.copilot reads them). A hooks file naming any other key is not an event the
#: host fires: refuse to generate one rather than guard nothing.
ACCEPTED_EVENTS = frozenset(
    {
        "sessionStart",
        "sessionEnd",
        "userPromptSubmitted",
        "userPromptTransformed",
        "preToolUse",
        "preMcpToolCall",
        "postToolUse",
        "postToolUseFailure",
        "errorOccurred",
        "agentStop",
        "subagentStart",
        "subagentStop",
        "preCompact",
        "permissionRequest",
        "notification",
    }
)

#: The events whose output reads a permission decision, and those that read ``decision: block``
#: (copilot-sdk/types.d.ts of 1.0.102); the fail-closed tail answers in the same form.
PERMISSION_JSON = frozenset({"preToolUse"})
BLOCK_JSON = frozenset({"userPromptSubmitted", "agentStop", "subagentStop"})


class CopilotEventError(PastureError, ValueError):
    pass


class CopilotLauncher(HostLauncher):
    host = "copilot-cli"
    wire_protocol = "openai-chat"
    default_options = {"model": "fake-model", "trust": "flag", "extra_args": []}  # trust: flag | persist | none

    def env(self, ctx: RunContext) -> dict[str, str]:
        return {
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": ctx.base_url_v1,
            "COPILOT_PROVIDER_API_KEY": FAKE_API_KEY,
            "COPILOT_MODEL": ctx.options["model"],
            "COPILOT_AUTO_UPDATE": "false",
        }

    def prepare(self, ctx: RunContext) -> None:
        trust = ctx.options["trust"]
        if trust not in ("flag", "persist", "none"):
            raise ValueError(f"trust must be flag, persist or none, not {trust!r}")
        if trust == "persist":
            config = ctx.layout.home / ".copilot" / "config.json"
            doc = json.loads(config.read_text()) if config.is_file() else {}
            folders = doc.setdefault("trustedFolders", [])
            if str(ctx.layout.project) not in folders:
                folders.append(str(ctx.layout.project))
            config.parent.mkdir(parents=True, exist_ok=True)
            config.write_text(json.dumps(doc, indent=2) + "\n")

    def argv(self, ctx: RunContext) -> list[str]:
        trust = ["--trust-folder"] if ctx.options["trust"] == "flag" else []
        return [
            str(ctx.binary),
            "-p",
            ctx.prompt,
            "--allow-all-tools",
            "--no-auto-update",
            "--disable-client-telemetry",
            *trust,
            *ctx.options["extra_args"],
        ]


def drop_unpacked(layout: RunLayout) -> None:
    """Delete the package the native binary unpacked into the run's cache (about 235 MB a run)."""
    shutil.rmtree(layout.xdg_cache / "copilot" / "pkg", ignore_errors=True)


def _refusal_json(event: str, reason: str) -> str | None:
    if event in PERMISSION_JSON:
        return json.dumps({"permissionDecision": "deny", "permissionDecisionReason": reason}, ensure_ascii=False)
    if event in BLOCK_JSON:
        return json.dumps({"decision": "block", "reason": reason}, ensure_ascii=False)
    return None


_EXIT = "@EXIT@"  # where the exit status goes in the refusal line (plain ASCII: json.dumps keeps it as it is)


def shell_command(contract: Contract, row: EventRow, default_binary: str = commands.DEFAULT_BINARY) -> str:
    """The runtime's command line; on a row that blocks by exit code, a tail that turns any failure but
    the runtime's own exit 2 into the event's JSON refusal (exit 0), or exit 2 with one stderr line where
    the event reads no JSON refusal."""
    run = f"{commands.binary(default_binary)} {shell_words(commands.argv(contract, row))}"
    if not commands.fails_closed(row):
        return run
    # "$r" is the runtime's exit status (digits only), spliced between two quoted halves of the line.
    before = "pasture: the guard could not run (exit "
    after = f"), so {row.name} is refused; see `pasture doctor` for the fix"
    refusal = _refusal_json(row.name, before + _EXIT + after)
    if refusal is None:
        say = f"printf '%s\\n' {shlex.quote(before)}\"$r\"{shlex.quote(after)} >&2"
        return f"{run} || {{ r=$?; [ $r = {commands.EXIT_BLOCK} ] || {say}; exit {commands.EXIT_BLOCK}; }}"
    head, _, tail = refusal.partition(_EXIT)
    say = f"printf '%s\\n' {shlex.quote(head)}\"$r\"{shlex.quote(tail)}"
    return f"{run} || {{ r=$?; [ $r = {commands.EXIT_BLOCK} ] && exit {commands.EXIT_BLOCK}; {say}; exit 0; }}"


def handler(contract: Contract, row: EventRow, default_binary: str = commands.DEFAULT_BINARY) -> dict:
    return {
        "type": "command",
        "bash": shell_command(contract, row, default_binary),
        "timeoutSec": commands.timeout(row),
    }


def hooks_document(contract: Contract) -> dict:
    """The hooks file: one command handler per row, in catalog order."""
    unknown = [row.name for row in contract.events if row.name not in ACCEPTED_EVENTS]
    if unknown:
        raise CopilotEventError(
            f"{contract.lifecycle_file}: Copilot CLI fires no hook event named {', '.join(unknown)}; "
            f"its events: {', '.join(sorted(ACCEPTED_EVENTS))}"
        )
    matched = [row.name for row in contract.events if row.matcher not in (None, "*")]
    if matched:
        raise CopilotEventError(
            f"{contract.lifecycle_file}: Copilot CLI hooks have no matcher; rows {', '.join(matched)} name one"
        )
    return {"version": 1, "hooks": {row.name: [handler(contract, row)] for row in contract.events}}


def copilot_artifacts(contract: Contract) -> list[Artifact]:
    from pasture.render.env import render  # jinja2: only when rendering, not for the registry

    document = hooks_document(contract)
    return [Artifact(f"{contract.id}/hooks.json", render("json.j2", document=document), contract.id)]


class CopilotCli:
    name = "copilot-cli"
    display_name = "GitHub Copilot CLI"
    surfaces: tuple[HookSurface, ...] = (HookSurface.COPILOT_COMMAND_JSON,)
    instructions_file = "AGENTS.md"  # Copilot CLI reads AGENTS.md (and .github/copilot-instructions.md)
    # The tools a runtime profile may bind: of the 17 tools 1.0.102 offered the fake model in an offline
    # run (bash, read_bash, stop_bash, list_bash, view, create, edit, fetch_copilot_cli_documentation, skill,
    # sql, session_store_sql, read_agent, list_agents, write_agent, grep, glob, task), the orchestrating ones.
    native_calls = frozenset({"task", "read_agent", "list_agents", "write_agent", "skill"})
    npm_packages: tuple[str, ...] = ("@github/copilot",)
    binary = "copilot"
    binary_flag = "--copilot-bin"
    binary_env = "PASTURE_COPILOT_BIN"
    catalog_reader = "copilot"
    wire = "copilot_cli"
    gate_failure = "exit-2-blocks"
    launcher: HostLauncher = CopilotLauncher()

    def surface_of(self, bus: bool) -> HookSurface:
        return HookSurface.COPILOT_COMMAND_JSON

    def artifacts(self, contract: Contract) -> list[Artifact]:
        return copilot_artifacts(contract)


HOST: Host = CopilotCli()  # mypy checks the class against the Protocol here
