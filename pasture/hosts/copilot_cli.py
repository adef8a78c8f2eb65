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
* **Command:** ``copilot -p PROMPT --allow-all-tools --no-auto-update --disable-client-telemetry``;
  option ``allow_all_tools=False`` drops ``--allow-all-tools`` (its default permissions, where a headless
  run denies a shell call nobody can approve: the answer scenarios' control).
* **Cache:** on a fresh HOME the native binary unpacks its package (about 235 MB) into
  ``$XDG_CACHE_HOME/copilot/pkg/``; callers delete it after a run (:func:`drop_unpacked`).
"""

from __future__ import annotations

import copy
import json
import shlex
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from pasture import PastureError
from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext, RunLayout
from pasture.hosts.protocol import Host
from pasture.hosts.recording import HOOK_TIMEOUT, CaptureAdapter, CommandHookCapture, Records, Run
from pasture.hosts.scenario_sets import (
    ALLOW,
    ASKED_COMMAND,
    CONTINUE_BOUND,
    PROBE,
    PROBE_COMMAND,
    REWRITE,
    STOP_THEN_PROBE,
    Answer,
    Scenario,
)
from pasture.install.managed import ManagedChannel
from pasture.install.managed_json import OwnFileChannel
from pasture.profile.answers import STOP_ACTIVE, W_BLOCK_REASON, schema_field, schema_offers
from pasture.profile.contracts import Contract, EventRow
from pasture.profile.vocab import HookSurface, MutationMode
from pasture.render import commands
from pasture.render.artifact import Artifact
from pasture.render.encode import shell_words
from pasture.runtime.hostwire.copilot_cli import GUARDED_SYSTEM_FILES, GUARDED_SYSTEM_FOLDERS

if TYPE_CHECKING:
    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import DoctorContext
    from pasture.hosts.scenario_sets import Scenario, ScenarioSet
    from pasture.install.places import Installation, Target
    from pasture.install.session import Adapter, Session
    from pasture.profile.versions import HostVersion

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
    # trust: flag | persist | none; allow_all_tools False: its default permissions (answer scenarios)
    default_options = {"model": "fake-model", "trust": "flag", "extra_args": [], "allow_all_tools": True}

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
            *(["--allow-all-tools"] if ctx.options["allow_all_tools"] else []),
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
    # named as installed (.github/hooks/pasture.json); user scope takes its hooks into settings.json
    return [Artifact(f"{contract.id}/pasture.json", render("json.j2", document=document), contract.id)]


# --- capture ----------------------------------------------------------------------------------------


class CopilotCapture(CommandHookCapture):
    """``.github/hooks/pasture-capture.json`` (``{"version": 1, "hooks": {event: [handler]}}``: no matcher
    groups, ``bash`` and ``timeoutSec``), loaded in a folder trusted the way ``pasture install
    --trust-project`` trusts it (``~/.copilot/config.json`` ``trustedFolders``). Its JSON deny is the flat
    ``{"permissionDecision": "deny", "permissionDecisionReason"}`` on preToolUse and ``{"decision": "block",
    "reason"}`` elsewhere, printed from an answer file. No catalog pass: the catalog comes from the package
    the binary unpacks (pasture.catalog.copilot)."""

    harness = "copilot-cli"
    config_dir = ".github/hooks"
    config_file = "pasture-capture.json"
    options = {"trust": "persist"}

    def candidates(self, repo_root: Path) -> list[str]:
        return sorted(ACCEPTED_EVENTS)

    def _hooks(self, run: Run, events: list[str], scenario: Scenario | None) -> dict[str, Any]:
        from pasture.hosts.recorder import install_recorder, recorder_command

        recorder = install_recorder(run.root)
        log = run.root / self.log_name
        table: dict[str, Any] = {}
        for event in events:
            kwargs: dict[str, Any] = {"mode": "observe"}
            if scenario is not None and scenario.refused_event == event:
                if scenario.channel == "exit-2":
                    kwargs = {"mode": "exit2", "reason": scenario.reason(), "block_event": event}
                else:
                    refusal = _refusal_json(event, scenario.reason())
                    answer_file = run.root / f"refusal-{event}.json"
                    answer_file.write_text((refusal or "{}") + "\n")
                    kwargs = {"mode": "answer", "answer_file": answer_file, "answer_times": 1}
            answer = scenario.answer if scenario is not None else None
            if scenario is not None and answer is not None and answer.event == event:
                answer_file = run.root / f"answer-{event}.json"
                answer_file.write_text(json.dumps(answer.filled(scenario.marker or ""), sort_keys=True) + "\n")
                kwargs = {
                    "mode": "answer",
                    "answer_file": answer_file,
                    "answer_times": answer.times,
                    "merge_tool_input": answer.merge_tool_input,
                }
            command = recorder_command(recorder, log, event, **kwargs)
            table[event] = [{"type": "command", "bash": command, "timeoutSec": HOOK_TIMEOUT}]
        return {"version": 1, "hooks": table}

    #: Hooks Copilot starts together at the start of a run (seen either way round in two runs of one
    #: scenario): the capture lists the first of each in this order, so a re-capture is byte-identical.
    concurrent_start = ("sessionStart", "userPromptSubmitted")

    def records(self, run: Run) -> Records:
        # the package the native binary unpacked into the run's cache (about 235 MB) is not a record
        shutil.rmtree(run.root / "home" / ".cache" / "copilot" / "pkg", ignore_errors=True)
        out = super().records(run)
        head = 0
        while (
            head < len(out.calls)
            and out.calls[head].event in self.concurrent_start
            and out.calls[head].event not in {c.event for c in out.calls[:head]}
        ):
            head += 1
        out.calls[:head] = sorted(out.calls[:head], key=lambda c: self.concurrent_start.index(c.event))
        return out

    def catalog_method(self) -> str:
        return (
            "no catalog pass: the hook events are the settings schema's hooks.<event> entries in the hook "
            "runtime the binary unpacks (captures/<version>/catalog.json); every one is registered"
        )

    def scenario_set(self) -> ScenarioSet:
        from pasture.hosts import scenario_sets as s

        return s.ScenarioSet(base=copilot_scenarios(), answer=copilot_answer_scenarios())


# --- install -----------------------------------------------------------------------------------------
# Project scope: .github/hooks/pasture.json, a file of pasture's own beside the repository's hooks files,
# and Copilot's folder trust (~/.copilot/config.json trustedFolders: without it Copilot runs no project
# hook and says nothing), recorded only with --trust-project (it trusts the repository's own hooks too),
# else the install is incomplete, loudly (exit 3). User scope: inline hooks in ~/.copilot/settings.json
# (they run without folder trust), merged without touching foreign handlers or keys.


def copilot_home(env: Mapping[str, str]) -> Path:
    """``$COPILOT_HOME``, else ``~/.copilot`` (`copilot help environment`)."""
    from pasture.install.places import env_dir, home

    return env_dir(env, "COPILOT_HOME", home(env) / ".copilot")


def is_our_handler(handler: Any) -> bool:
    from pasture.install.hooktable import is_our_command

    return isinstance(handler, dict) and handler.get("type") == "command" and is_our_command(handler.get("bash"))


def with_binary(document: dict[str, Any], word: str) -> dict[str, Any]:
    """The generated hooks document with every command's binary replaced by ``word`` (see hooktable.with_binary)."""
    from pasture.install.hooktable import OUR_COMMAND, pinned

    doc = copy.deepcopy(document)
    head = word if pinned(word) else commands.binary(word)
    for handlers in doc.get("hooks", {}).values():
        for handler in handlers:
            if is_our_handler(handler):
                handler["bash"] = OUR_COMMAND.sub(
                    f"{head} hook lifecycle ".replace("\\", "\\\\"), handler["bash"], count=1
                )
    return doc


def _hooks_of(doc: dict[str, Any], path: Path) -> dict[str, Any]:
    from pasture.install.report import InstallError

    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
        raise InstallError(f"{path}: 'hooks' is not an object of handler lists; refusing to touch it")
    return hooks


def merge(existing: dict[str, Any] | None, generated: dict[str, Any], path: Path) -> dict[str, Any]:
    """Our handlers in place of our old ones (foreign handlers, events and keys untouched, in their order)."""
    if existing is None:
        return copy.deepcopy(generated)
    doc = copy.deepcopy(existing)
    hooks = _hooks_of(doc, path)
    doc["hooks"] = hooks
    for key, value in generated.items():
        if key != "hooks":
            doc.setdefault(key, value)
    wanted = generated["hooks"]
    for event, old in list(hooks.items()):
        new = copy.deepcopy(wanted.get(event, []))
        merged = []
        for handler in old:
            if not is_our_handler(handler):
                merged.append(handler)
            elif new:
                merged.append(new.pop(0))
        merged += new
        if merged or not any(is_our_handler(h) for h in old):
            hooks[event] = merged
        else:
            del hooks[event]
    for event, handlers in wanted.items():
        hooks.setdefault(event, copy.deepcopy(handlers))
    return doc


def unmerge(existing: dict[str, Any], path: Path, own_keys: tuple[str, ...]) -> tuple[dict[str, Any] | None, int]:
    """``existing`` without our handlers (None: nothing but ``own_keys`` and empty containers was left), and
    how many were removed."""
    doc = copy.deepcopy(existing)
    hooks = _hooks_of(doc, path)
    removed = 0
    for event, old in list(hooks.items()):
        kept = [h for h in old if not is_our_handler(h)]
        removed += len(old) - len(kept)
        if len(kept) != len(old) and not kept:
            del hooks[event]
        elif len(kept) != len(old):
            hooks[event] = kept
    if removed and not hooks:
        doc.pop("hooks", None)
        if all(k in own_keys for k in doc):
            return None, removed
    return doc, removed


def _install(session: Session) -> None:
    from pasture.install import jsonhooks
    from pasture.install.hooktable import render, same
    from pasture.install.report import FileChange
    from pasture.install.session import write

    target, adapter = session.target, session.adapter
    assert adapter is not None
    word = session.install_launcher()
    generated = with_binary(adapter.hooks_document(), word)
    if target.scope == "user":
        generated = {"hooks": generated["hooks"]}  # settings.json: the inline hooks only
    snap = session.checked(target.file)
    existing = jsonhooks.read(snap)
    document = merge(existing, generated, target.file)
    if existing is not None and same(document, existing):
        session.report.files.append(FileChange(snap.path, "unchanged"))
        return
    session.report.files.append(write(snap, render(document, snap.text), backup=existing is not None))


def _uninstall(session: Session) -> None:
    from pasture.install import jsonhooks
    from pasture.install.report import FileChange
    from pasture.install.session import remove, write

    target, report = session.target, session.report
    if target.scope == "project" and target.project is not None:
        _remove_trust(session, target.project)  # also when our hooks file is already gone
    snap = session.checked(target.file)
    existing = jsonhooks.read(snap)
    if existing is None:
        report.files.append(FileChange(target.file, "absent"))
        return
    own = ("version",) if target.scope == "project" else ()
    document, removed = unmerge(existing, target.file, own)
    if not removed:
        report.files.append(FileChange(target.file, "unchanged", detail="no pasture hooks in it"))
    elif document is None:
        remove(snap)
        report.files.append(FileChange(target.file, "removed", detail=f"{removed} pasture hook(s); nothing else left"))
        session.prune()
    else:
        change = write(snap, jsonhooks.uninstalled_text(snap, document))
        change.detail = f"{removed} pasture hook(s) removed"
        report.files.append(change)


def trusted_folders(env: Mapping[str, str]) -> tuple[Path, list[str]]:
    """(config.json, its trustedFolders) as Copilot keeps them; [] when the file or the key is missing."""
    path = copilot_home(env) / "config.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return path, []
    folders = doc.get("trustedFolders") if isinstance(doc, dict) else None
    return path, [f for f in folders if isinstance(f, str)] if isinstance(folders, list) else []


def folder_trusted(project: Path, env: Mapping[str, str]) -> bool:
    """Copilot trusts ``project`` (a trusted folder or one above it; COPILOT_ALLOW_ALL=true trusts every one)."""
    if env.get("COPILOT_ALLOW_ALL") == "true":
        return True
    _path, folders = trusted_folders(env)
    project = Path(project).resolve()
    return any(project == Path(f) or Path(f) in project.parents for f in folders)


def _trust(session: Session) -> None:
    from pasture.install import files
    from pasture.install.hooktable import render
    from pasture.install.report import InstallError
    from pasture.install.session import write

    target, report, opts = session.target, session.report, session.opts
    if target.scope != "project" or target.project is None:
        return  # user-level hooks run without any folder trust
    if folder_trusted(target.project, opts.env):
        return
    path, _folders = trusted_folders(opts.env)
    if not opts.trust_project:
        report.problems.append(
            f"Copilot CLI runs no project hook in a folder it does not trust, and says nothing: {target.project} "
            f"is not in {path} trustedFolders, so pasture's hooks will NOT run there. Add --trust-project to record "
            f"it (this trusts the repository's own hooks too), or install with --user (user hooks need no trust)"
        )
        return
    snap = files.snapshot(path)
    try:
        files.check_writable(snap)
    except files.NotWritable as exc:
        raise InstallError(f"{exc}: the folder trust was not recorded") from None
    try:
        doc = json.loads(snap.data.decode("utf-8")) if snap.exists and snap.data else {}
    except (UnicodeDecodeError, ValueError):
        raise InstallError(f"{path}: not JSON; the folder trust was not recorded") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("trustedFolders", []), list):
        raise InstallError(f"{path}: trustedFolders is not a list; the folder trust was not recorded")
    doc.setdefault("trustedFolders", []).append(str(target.project))
    change = write(snap, render(doc, snap.text if snap.exists else None))
    change.detail = f"trustedFolders += {target.project} (uninstall removes it)"
    report.files.append(change)
    # what uninstall may take out again: this entry, which we added (a trust the user had is never ours)
    _write_record(
        _trust_record(target.project, opts.env),
        {"config": str(path), "folder": str(target.project), "before": snap.text if snap.exists else None},
    )


def _trust_record(project: Path, env: Mapping[str, str]) -> Path:
    import hashlib
    import os

    from pasture.runtime.layers import state_dir

    key = hashlib.sha256(os.path.realpath(project).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return Path(state_dir(dict(env))) / "copilot-trust" / f"{key}.json"


def _write_record(path: Path, record: dict[str, Any]) -> None:
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _remove_trust(session: Session, project: Path) -> None:
    """Take out the trustedFolders entry install added (only that one, only while it is there): the
    repository's own hooks are no longer trusted once ours are gone. The file's old bytes come back when
    nothing else in it changed since; otherwise only the entry goes, every other one kept in its order."""
    from pasture.install import files
    from pasture.install.hooktable import render
    from pasture.install.session import write

    record_path = _trust_record(project, session.opts.env)
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # install added no trust here (or the user had it): nothing of ours to take out
    path, folder, before = Path(record.get("config", "")), record.get("folder"), record.get("before")
    snap = files.snapshot(path)
    try:
        doc = json.loads(snap.data.decode("utf-8")) if snap.exists and snap.data else None
    except (UnicodeDecodeError, ValueError):
        doc = None
    folders = doc.get("trustedFolders") if isinstance(doc, dict) else None
    if isinstance(doc, dict) and isinstance(folders, list) and folder in folders:
        folders.remove(folder)
        try:
            restored = json.loads(before) if before is not None else None
        except ValueError:
            restored = None
        if before is not None and restored == doc:
            change = write(snap, before)
        else:
            change = write(snap, render(doc, snap.text))
        change.detail = f"trustedFolders -= {folder} (the folder trust pasture install added)"
        session.report.files.append(change)
    record_path.unlink(missing_ok=True)


# --- doctor ------------------------------------------------------------------------------------------
# The doctor's JSON-hooks checks read matcher groups; Copilot's handler lists are shown to them as one
# group per handler, its ``bash`` as the command.


def as_groups(doc: Any) -> dict[str, Any]:
    hooks = doc.get("hooks") if isinstance(doc, dict) else None
    if not isinstance(hooks, dict):
        return {"hooks": {}}
    return {
        "hooks": {
            event: [
                {"hooks": [{"type": h.get("type"), "command": h.get("bash"), "timeout": h.get("timeoutSec")}]}
                for h in handlers
                if isinstance(h, dict)
            ]
            for event, handlers in hooks.items()
            if isinstance(handlers, list)
        }
    }


def _grouped_text(text: str) -> str | None:
    try:
        return json.dumps(as_groups(json.loads(text)))
    except ValueError:
        return None


# GitHub Copilot CLI's answer wire forms (the flat outputs of copilot-sdk/types.d.ts)
W_COP_ALLOW = "permissionDecision=allow"
W_COP_MODIFIED_ARGS = "modifiedArgs+permissionDecision=allow"
W_COP_CONTEXT = "additionalContext"


def _copilot_candidates(row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """GitHub Copilot CLI: flat outputs. ``permissionDecision`` allow, ``modifiedArgs`` (with allow) on an
    ``input`` row, ``additionalContext`` (after a tool: feedback), ``decision: block`` + ``reason`` on the stop
    event (agentStop, whose input carries ``stopHookActive``)."""
    out = []
    after_tool = "toolResult" in inputs or ("toolArgs" in inputs and "error" in inputs)
    stop = any(name in inputs for name in STOP_ACTIVE)
    allows = schema_offers(output, "permissionDecision", "allow")
    if row.pre_action and allows:
        out.append(("allow", W_COP_ALLOW))
    if (
        row.pre_action
        and allows
        and row.mutation is MutationMode.INPUT
        and schema_field(output, "modifiedArgs") is not None
    ):
        out.append(("rewrite", W_COP_MODIFIED_ARGS))
    if schema_field(output, "additionalContext") is not None:
        out.append(("feedback" if after_tool and not row.pre_action else "context", W_COP_CONTEXT))
    if stop and schema_offers(output, "decision", "block") and schema_field(output, "reason") is not None:
        out.append(("continue", W_BLOCK_REASON))
    return out


def _ours(document: Any) -> bool:
    hooks = document.get("hooks") if isinstance(document, dict) else None
    return isinstance(hooks, dict) and any(
        is_our_handler(h) for handlers in hooks.values() if isinstance(handlers, list) for h in handlers
    )


def _our_commands(document: dict[str, Any]) -> list[str]:
    return [h["bash"] for handlers in document.get("hooks", {}).values() for h in handlers if is_our_handler(h)]


# Managed install (issue 28), read in @github/copilot-linux-x64 1.0.102: the native runtime
# (prebuilds/linux-x64/runtime.node, unpacked by pasture.catalog.copilot) names the machine-wide policy hook
# folder "/etc/github-copilot/policy.d" ("Loaded policy hooks from ..."; a policy hook that fails is
# "Policy hook ... execution failed (fail-closed)"), and cli-main.js refuses to switch one off ("Policy
# hooks cannot be disabled."); its managed settings file is "/etc/github-copilot/managed-settings.json"
# (`allowManagedHooksOnly` among its keys: with it a trusted repository's own hooks no longer run, the policy
# hooks still do). The runtime also names COPILOT_TEST_MANAGED_SETTINGS_FILE_PATH beside that path; whether
# a release build lets it move the file is not established (the user's own environment: Copilot loads no
# dotenv file). Proven on the real host: tests/realhost/test_managed_real_hosts.py.
MANAGED = OwnFileChannel(
    paths=(f"{GUARDED_SYSTEM_FOLDERS[0]}/pasture.json", *GUARDED_SYSTEM_FILES),
    lockout="a policy hook (loaded first, run whatever a repository's or user's disableAllHooks says, never "
    "switched off by /hooks); allowManagedHooksOnly: true: a repository's or user's own hooks do not run",
    read_in="1.0.102",
    lock=(("allowManagedHooksOnly", True),),
    lock_file=GUARDED_SYSTEM_FILES[0],
    gaps=(
        (
            "COPILOT_TEST_MANAGED_SETTINGS_FILE_PATH, named by the runtime beside the managed settings path, may "
            "move that file when set in the user's own environment (not established; the policy hooks stay)",
            "leave COPILOT_TEST_MANAGED_SETTINGS_FILE_PATH unset in the users' environment",
        ),
        (
            "a repository's disabledHooks (content-hash keys) was not tried against the policy hooks (1.0.102's "
            "/hooks refuses to switch a policy hook off; whether the settings list can is not established)",
            "pasture doctor names a repository's disabledHooks (off-switch); remove it from that file",
        ),
    ),
    with_binary=with_binary,
    is_ours=_ours,
    commands=_our_commands,
)


class CopilotCli:
    name = "copilot-cli"
    display_name = "GitHub Copilot CLI"
    surfaces: tuple[HookSurface, ...] = (HookSurface.COPILOT_COMMAND_JSON,)
    instructions_file = "AGENTS.md"  # Copilot CLI reads AGENTS.md (and .github/copilot-instructions.md)
    # The tools a runtime profile may bind: of the 17 tools 1.0.102 offered the fake model in an offline
    # run (bash, read_bash, stop_bash, list_bash, view, create, edit, fetch_copilot_cli_documentation, skill,
    # sql, session_store_sql, read_agent, list_agents, write_agent, grep, glob, task), the orchestrating ones.
    native_calls = frozenset({"task", "read_agent", "list_agents", "write_agent", "skill"})
    unsupported_operations: Mapping[str, str] = {}  # none (pasture.profile.rules)
    npm_packages: tuple[str, ...] = ("@github/copilot",)
    npm_postinstall: tuple[tuple[str, tuple[str, ...]], ...] = ()
    binary = "copilot"
    binary_flag = "--copilot-bin"
    binary_env = "PASTURE_COPILOT_BIN"
    catalog_reader = "copilot"
    wire = "copilot_cli"
    gate_failure = "exit-2-blocks"
    launcher: HostLauncher = CopilotLauncher()

    def version_env(self, home: str) -> dict[str, str]:
        return {"COPILOT_AUTO_UPDATE": "false", "COPILOT_OFFLINE": "true"}

    def surface_of(self, bus: bool) -> HookSurface:
        return HookSurface.COPILOT_COMMAND_JSON

    def artifacts(self, contract: Contract) -> list[Artifact]:
        return copilot_artifacts(contract)

    # install
    adapter_file = "pasture.json"
    install_flags: frozenset[str] = frozenset({"--trust-project"})
    managed: ManagedChannel | None = MANAGED

    def target(self, project: Path | None, env: Mapping[str, str]) -> Target:
        from pasture.install.places import Target, project_folder

        folder = copilot_home(env)
        if project is not None:
            project = project_folder(project)
            return Target(self.name, "project", project / HOOKS_FILE, project, host_home=folder, project=project)
        return Target(self.name, "user", folder / "settings.json", folder.parent, host_home=folder)

    def pick_contract(
        self, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
    ) -> tuple[str, str]:
        from pasture.install.places import highest_floor

        return highest_floor(self.name, available, version, seen)

    def install(self, session: Session) -> None:
        _install(session)

    def trust(self, session: Session) -> None:
        _trust(session)

    def uninstall(self, session: Session) -> None:
        _uninstall(session)

    # doctor
    def read_installation(self, target: Target, text: str) -> Installation | Finding | None:
        from pasture.doctor.installed import read_json_hooks
        from pasture.install.places import Installation

        grouped = _grouped_text(text)
        found = read_json_hooks(self.name, target, grouped if grouped is not None else text)
        if isinstance(found, Installation):
            found.text = text  # the file as it is; the document as the shared checks read it
        return found

    def check_adapter(self, inst: Installation, adapter: Adapter) -> list[Finding]:
        from dataclasses import replace

        from pasture.doctor.installed import check_json_hooks

        grouped = replace(adapter.artifact, text=json.dumps(as_groups(adapter.hooks_document())))
        return check_json_hooks(inst, replace(adapter, artifact=grouped))

    def check_launcher(self, inst: Installation, env: Mapping[str, str]) -> list[Finding]:
        from pasture.doctor.installed import check_json_launcher

        return check_json_launcher(inst, env)

    def check_session(self, inst: Installation, ctx: DoctorContext) -> list[Finding]:
        from pasture.doctor.findings import Finding
        from pasture.doctor.installed import reinstall

        target = inst.target
        if target.scope != "project" or target.project is None:
            return [Finding("copilot-trust", "ok", "user-level hooks run without folder trust", self.name)]
        if folder_trusted(target.project, ctx.env):
            return [Finding("copilot-trust", "ok", f"{target.project} is a trusted folder", self.name)]
        path, _ = trusted_folders(ctx.env)
        return [
            Finding(
                "copilot-trust",
                "off",
                f"Copilot CLI does not trust {target.project} ({path} trustedFolders): it runs none of the "
                "project's hooks there, pasture's included, and says nothing",
                self.name,
                fix=reinstall(self.name, target, "--trust-project") + f" (or pasture install {self.name} --user)",
                where=str(path),
            )
        ]

    def check_environment(
        self, project: Path | None, env: Mapping[str, str], installs: list[Installation]
    ) -> list[Finding]:
        return []

    # capture, profile new
    capture: CaptureAdapter = CopilotCapture()
    identity_fields: Mapping[str, str] = {"sessionId": "session", "toolCallId": "tool-call", "agentId": "agent"}
    capture_identity_fields: Mapping[str, str] = identity_fields
    not_events: Mapping[str, str] = {}
    throw_refuses = False
    tool_matchers = False  # Copilot's hooks have no matcher groups
    output_in_payload = False
    observation_axes: Mapping[str, Mapping[str, str]] = {
        "copilot-command-json": {
            "order": "concurrent-native",
            "reconciliation": "none",
            "failure": "report-and-continue",
        }
    }
    gate_axes: Mapping[str, Mapping[str, str]] = {
        "copilot-command-json": {"order": "concurrent-native", "reconciliation": "no-adapter-merge"}
    }

    def answer_candidates(self, row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return _copilot_candidates(row, output, inputs)

    def lifecycle_payload(self, event: str, payload: Any, bus: bool) -> Any:
        return payload  # the command hook's stdin, as the host sent it

    # install and doctor (per host)

    install_binary_use: str | None = None
    doctor_binary_use: str | None = None
    trust_project_help: str | None = "Copilot CLI: config.json trustedFolders"
    pasture_bin_reader: str | None = None


HOST: Host = CopilotCli()  # mypy checks the class against the Protocol here


# --- what `pasture capture` runs on this host (the scenarios its ScenarioSet is made of) ---------


def copilot_scenarios() -> tuple[Scenario, ...]:
    """GitHub Copilot CLI: preToolUse refuses by exit 2 (the model reads only the exit code) or by its flat
    JSON permission decision (the reason reaches the model)."""
    return (
        ALLOW,
        Scenario(
            "pre-tool-use-exit-2",
            "preToolUse refuses the shell call by exiting 2 with the reason on stderr",
            PROBE,
            "preToolUse",
            "exit-2",
            False,
        ),
        Scenario(
            "pre-tool-use-json-deny",
            "preToolUse refuses the shell call with permissionDecision deny and a permissionDecisionReason",
            PROBE,
            "preToolUse",
            "json-deny",
            False,
        ),
    )


#: Copilot CLI without --allow-all-tools: a shell call needs a permission nobody can give headless.
COPILOT_DEFAULT_PERMISSIONS = (("allow_all_tools", False),)


def copilot_answer_scenarios() -> tuple[Scenario, ...]:
    """GitHub Copilot CLI's answers in the flat forms of its SDK typings (copilot-sdk/types.d.ts of the
    unpacked package: ``PreToolUseHookOutput``, ``SessionStartHookOutput``, ``PostToolUseHookOutput``, ...)."""
    where = "without --allow-all-tools (its default permissions)"
    return (
        Scenario(
            "pre-tool-use-rewrite",
            f"preToolUse answers modifiedArgs (the model's toolArgs with the rewritten command; the model "
            f"asked for {ASKED_COMMAND}) and permissionDecision allow, {where}; the rewritten command must be "
            "the one that ran",
            REWRITE,
            options=COPILOT_DEFAULT_PERMISSIONS,
            answer=Answer(
                "rewrite",
                "preToolUse",
                W_COP_MODIFIED_ARGS,
                {
                    "permissionDecision": "allow",
                    "permissionDecisionReason": "{marker}",
                    "modifiedArgs": {"command": PROBE_COMMAND},
                },
                merge_tool_input=True,
            ),
        ),
        Scenario(
            "no-answer-approval",
            f"control for the allow answer: the shell call {where}, nothing answers; a headless run has "
            "nobody to approve it, so it must not run",
            PROBE,
            options=COPILOT_DEFAULT_PERMISSIONS,
        ),
        Scenario(
            "pre-tool-use-allow",
            f"preToolUse answers permissionDecision allow {where}; honoured if the call runs without a prompt",
            PROBE,
            options=COPILOT_DEFAULT_PERMISSIONS,
            control="no-answer-approval",
            answer=Answer(
                "allow",
                "preToolUse",
                W_COP_ALLOW,
                {"permissionDecision": "allow", "permissionDecisionReason": "{marker}"},
            ),
        ),
        Scenario(
            "session-start-context",
            "sessionStart answers additionalContext; honoured if the text is in the first request the model receives",
            PROBE,
            answer=Answer("context", "sessionStart", W_COP_CONTEXT, {"additionalContext": "{marker}"}),
        ),
        Scenario(
            "user-prompt-submitted-context",
            "userPromptSubmitted answers additionalContext; honoured if the text is in the first request the "
            "model receives",
            PROBE,
            answer=Answer("context", "userPromptSubmitted", W_COP_CONTEXT, {"additionalContext": "{marker}"}),
        ),
        Scenario(
            "post-tool-use-feedback",
            "after the shell call postToolUse answers additionalContext; honoured if the text is in what the "
            "next request adds after the tool call",
            PROBE,
            answer=Answer("feedback", "postToolUse", W_COP_CONTEXT, {"additionalContext": "{marker}"}),
        ),
        Scenario(
            "agent-stop-continue",
            f'the model stops at once; agentStop answers {{"decision": "block", "reason"}} on the first '
            f"{CONTINUE_BOUND} stops (our bound), then lets the host stop; honoured if the next request holds "
            f"the reason, the next turn writes the probe file, and the host stops by itself after "
            f"{CONTINUE_BOUND} continuations",
            STOP_THEN_PROBE,
            answer=Answer(
                "continue",
                "agentStop",
                W_BLOCK_REASON,
                {"decision": "block", "reason": "{marker}"},
                times=CONTINUE_BOUND,
            ),
        ),
    )
