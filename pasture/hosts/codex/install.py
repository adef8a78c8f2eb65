"""Codex's install: hooks.json merged like any JSON hooks file (:mod:`.hooktable`), plus what Codex alone
needs: the project trusted in ``$CODEX_HOME/config.toml`` (its project ``.codex/`` layer loads only then),
and every one of our hooks trusted (``[hooks.state."<key>"] trusted_hash``, keys and hashes from
``codex app-server`` ``hooks/list``, :mod:`.codex_trust`), foreign trust entries re-keyed when their hooks
move. Codex skips an untrusted hook without a word, so a trust that cannot be recorded is a loud problem
(exit 3) naming the command that finishes the job.

:func:`install` writes hooks.json and the project trust and hands :func:`trust` what it needs in
``session.state``; ``--trust-only`` runs :func:`trust` alone, which then prepares without writing hooks.json.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pasture.hosts.codex.server import AppServer, CodexServerError, find_codex
from pasture.install import codex_trust, files, hooktable, jsonhooks, launcher, tomledit
from pasture.install.places import Target
from pasture.install.report import FileChange, InstallError, Report
from pasture.install.session import Options, Session, undo, write


def _read_config(path: Path) -> tuple[files.Snapshot, str, dict[str, Any]]:
    snap = files.snapshot(path)
    try:
        text = snap.text or ""
    except UnicodeDecodeError:
        raise InstallError(f"{path}: not UTF-8 text; refusing to touch it") from None
    try:
        return snap, text, tomledit.loads(text)
    except tomledit.TomlEditError as exc:
        raise InstallError(f"{path}: {exc}; refusing to touch anything (Codex cannot read it either)") from None


def _trust_command(session: Session) -> str:
    return session.rerun("--trust-only", contract=session.report.contract)


def _positions(doc: dict[str, Any] | None) -> dict[tuple[str, int, int], Any]:
    """(event label, group, handler) -> our whole group, for every handler in our groups."""
    if doc is None:
        return {}
    return {(codex_trust.event_label(e), g, h): doc["hooks"][e][g] for e, g, h, _ in hooktable.our_handlers(doc)}


def _same_json(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _kept(before: dict, after: dict) -> set[tuple[str, int, int]]:
    return {p for p, group in before.items() if p in after and _same_json(group, after[p])}


@dataclass
class _Prepared:
    """What install (or --trust-only) prepared and the trust step goes on from."""

    config_path: Path
    config_snap: files.Snapshot
    config_text: str
    new_config_text: str
    trust_root: Path | None
    previous_level: str | None
    existing: dict[str, Any] | None
    document: dict[str, Any]
    generated: dict[str, Any]
    before: dict[tuple[str, int, int], Any]
    kept: set[tuple[str, int, int]]
    moved: list[tuple[str, int, int]]
    base_plan: codex_trust.StatePlan
    first: FileChange
    wrote_first: bool


def install(session: Session) -> None:
    """hooks.json merged, the project trusted (with --trust-project); the hooks' trust is :func:`trust`'s."""
    session.state["codex"] = _prepare(session, trust_only=False)


def trust(session: Session) -> None:
    """Record (and confirm) Codex's trust of our hooks; alone (--trust-only), trust the hooks already installed."""
    prepared = session.state.pop("codex", None) or _prepare(session, trust_only=True)
    _record_trust(session, prepared)


def _prepare(session: Session, trust_only: bool) -> _Prepared:
    opts, target, report, adapter = session.opts, session.target, session.report, session.adapter
    assert target.host_home is not None and adapter is not None
    config_path = target.host_home / "config.toml"
    config_snap, config_text, config = _read_config(config_path)
    try:
        files.check_writable(config_snap)
    except files.NotWritable as exc:
        raise InstallError(f"{exc} (nothing was written)") from None
    snap = session.checked(target.file)
    existing = jsonhooks.read(snap)
    if trust_only:
        word = jsonhooks.recorded_word(existing) or launcher.shell_word(launcher.launcher_path(opts.env))
    else:
        word = session.install_launcher()
    generated = hooktable.with_binary(adapter.hooks_document(), word)

    # Project layer: only loaded for a trusted project.
    new_config_text = config_text
    trust_root = None
    previous_level: str | None = None
    if target.project is not None:
        trust_root = codex_trust.project_trust_root(target.project)
        level = codex_trust.project_trust_level(config, trust_root)
        if level != "trusted":
            if not opts.trust_project:
                raise InstallError(
                    f"Codex loads {target.project}/.codex/ only for a trusted project, and {trust_root} is "
                    f"{'marked ' + repr(level) if level else 'not trusted'} in {config_path}; nothing was written",
                    hint=(
                        f'add --trust-project to record [projects."{trust_root}"] trust_level = "trusted" '
                        f"in {config_path}, or trust the project in Codex itself (run `codex` in {trust_root}) "
                        "and run this again"
                    ),
                    command=session.rerun("--trust-project"),
                )
            try:
                new_config_text = codex_trust.trust_project(config_text, trust_root)
            except tomledit.TomlEditError as exc:
                raise InstallError(
                    f"{config_path}: {exc}; nothing was written",
                    hint=(f'add [projects."{trust_root}"] trust_level = "trusted" to {config_path} yourself'),
                ) from None
            previous_level = level

    if trust_only:
        if existing is None or not hooktable.our_handlers(existing):
            raise InstallError(f"{target.file} holds no pasture hooks to trust", command=session.rerun())
        result = hooktable.MergeResult(existing, False)
        text = snap.text or ""
    else:
        result = hooktable.merge(existing, generated)
        text = hooktable.render(result.document, snap.text)
    jsonhooks.mixed_warning(report, target.file, result.mixed)
    before, after = _positions(existing), _positions(result.document)
    kept = _kept(before, after)

    # Foreign trust that moves with its hook, our stale entries dropped: checked before writing anything.
    base_plan = codex_trust.plan_state(config, target.file, before=set(before), kept=kept, moved=result.moved)
    try:
        codex_trust.apply_state(new_config_text, base_plan)
    except tomledit.TomlEditError as exc:
        raise InstallError(f"{config_path}: {exc}; nothing was written") from None

    hooks_change = FileChange(snap.path, "unchanged")
    if not trust_only and result.changed:
        hooks_change = write(snap, text)
        report.files.append(hooks_change)
    elif not trust_only:
        report.files.append(hooks_change)
    # Project trust first: Codex lists a project's hooks only once the project is trusted.
    try:
        target.host_home.mkdir(parents=True, exist_ok=True)
        first = write(config_snap, new_config_text)
    except (InstallError, OSError) as exc:
        undo(snap, hooks_change)
        raise InstallError(
            f"{exc if isinstance(exc, InstallError) else exc.strerror}; {target.file} was put back "
            "as it was (nothing was installed)"
        ) from None
    wrote_first = first.change in ("created", "updated")
    if wrote_first:
        config_snap = files.snapshot(config_path)
    return _Prepared(
        config_path,
        config_snap,
        config_text,
        new_config_text,
        trust_root,
        previous_level,
        existing,
        result.document,
        generated,
        before,
        kept,
        result.moved,
        base_plan,
        first,
        wrote_first,
    )


def _record_trust(session: Session, p: _Prepared) -> None:
    target, report = session.target, session.report
    config_path, config_snap, new_config_text, base_plan = p.config_path, p.config_snap, p.new_config_text, p.base_plan
    first, wrote_first = p.first, p.wrote_first
    trusted = _trust_ours(session, p.document, p.generated)
    _drift_warning(p.existing, p.kept, report)
    plan = codex_trust.plan_state(
        tomledit.loads(new_config_text),
        target.file,
        before=set(p.before),
        kept=p.kept,
        moved=p.moved,
        trust=trusted or {},
    )
    try:
        final_text = codex_trust.apply_state(new_config_text, plan)
    except tomledit.TomlEditError as exc:
        report.problems.append(f"could not record trust in {config_path}: {exc}")
        report.next_steps.append(
            "add to "
            + str(config_path)
            + ":\n"
            + "".join(
                f"[hooks.state.{tomledit.basic_string(k)}]\ntrusted_hash = {tomledit.basic_string(v)}\n"
                for k, v in (trusted or {}).items()
            )
        )
        plan = base_plan
        final_text = codex_trust.apply_state(new_config_text, plan)
    try:
        second = write(config_snap, final_text, backup=not wrote_first)
    except InstallError as exc:
        report.problems.append(str(exc))
        return
    change = FileChange(first.path, first.change, first.backup) if wrote_first else second
    change.detail = _config_detail(plan, p.trust_root if new_config_text != p.config_text else None, p.previous_level)
    report.files.append(change)
    if trusted is not None and not report.problems:
        _verify_trust(session, trusted)


def _drift_warning(existing: dict[str, Any] | None, kept: set[tuple[str, int, int]], report: Report) -> None:
    """Issue 9 item 7: our hooks were installed and unchanged, yet Codex no longer trusted them
    (a hook added before ours moves their trust keys; Codex then skips them without a word)."""
    if existing is None or not report.trust:
        return
    drifted = []
    for hook in report.trust.get("hooks", []):
        parts = codex_trust.split_key(hook["key"])
        if parts and parts[1:] in kept and hook.get("before") != "trusted":
            drifted.append(f"{hook.get('event') or parts[1]}[{parts[2]}] ({hook.get('before')})")
    if drifted:
        report.warnings.append(
            f"Codex had stopped trusting {len(drifted)} of our installed hooks: "
            f"{', '.join(drifted)}; it skipped them without a word until now (a hook added or "
            "removed before ours moves their trust keys). Trust is recorded again; "
            "`pasture doctor` reports this whenever it happens"
        )


def _config_detail(plan: codex_trust.StatePlan, trusted_project: Path | None, was: str | None = None) -> str:
    parts = []
    if trusted_project is not None:
        parts.append(f"project {trusted_project} marked trusted" + (f" (was {was!r})" if was else ""))
    if plan.trust:
        parts.append(f"{len(plan.trust)} hooks.state trusted_hash written")
    if plan.move:
        parts.append(f"{len(plan.move)} foreign hooks.state entries re-keyed")
    if plan.drop:
        parts.append(f"{len(plan.drop)} hooks.state entries of pasture hooks removed")
    return "; ".join(parts)


def _codex_env(opts: Options, target: Target) -> dict[str, str]:
    env = dict(opts.env)
    env["CODEX_HOME"] = str(target.host_home)
    return env


def _list_cwd(target: Target) -> Path:
    return target.project if target.project is not None else target.host_home  # type: ignore[return-value]


def _expected(
    doc: dict[str, Any], generated: dict[str, Any], report: Report, path: Path
) -> dict[tuple[str, int, int], dict]:
    """Our handlers that are exactly a generated group (the only ones we vouch for), by position."""
    wanted = {event: groups for event, groups in generated["hooks"].items()}
    found: dict[tuple[str, int, int], dict] = {}
    odd = []
    for event, g, h, handler in hooktable.our_handlers(doc):
        group = doc["hooks"][event][g]
        if any(_same_json(group, w) for w in wanted.get(event, [])):
            found[(codex_trust.event_label(event), g, h)] = {
                "event": event,
                "command": handler["command"],
                "matcher": group.get("matcher"),
            }
        else:
            odd.append(f"{event}[{g}]")
    if odd:
        report.warnings.append(
            f"{path}: hooks.{', hooks.'.join(odd)} look like pasture's but differ from contract "
            f"{report.contract}; not trusted (run `pasture install codex` to replace them)"
        )
    return found


def _trust_ours(session: Session, doc: dict[str, Any], generated: dict[str, Any]) -> dict[str, str] | None:
    """key -> currentHash of our handlers as Codex lists them; None (and a loud problem) if it cannot."""
    opts, target, report = session.opts, session.target, session.report
    assert target.host_home is not None  # a codex target
    expected = _expected(doc, generated, report, target.file)
    binary = find_codex(session.binary, opts.env)
    report.trust = {
        "config": str(target.host_home / "config.toml"),
        "codex": str(binary) if binary else None,
        "expected": len(expected),
        "hooks": [],
    }
    if binary is None:
        where = f"--codex-bin {session.binary} is not an executable file" if session.binary else "no `codex` on PATH"
        report.trust["summary"] = f"NOT recorded ({where})"
        report.problems.append(
            f"{where}: the hooks are installed but Codex will SILENTLY SKIP them until their trust is recorded "
            "(codex exec gives no warning); put codex on PATH (or add --codex-bin PATH) and run:"
        )
        report.next_steps.append(_trust_command(session))
        return None
    cwd = _list_cwd(target)
    try:
        with AppServer(binary, cwd=cwd, env=_codex_env(opts, target), timeout=opts.trust_timeout) as server:
            listing = server.list_hooks(cwd)
            listed = _match(listing, expected, target.file)
            reasons = server.disabled_layers(cwd) if len(listed) < len(expected) else []
    except CodexServerError as exc:
        report.trust["summary"] = "NOT recorded (codex app-server failed)"
        report.problems.append(f"{exc}; the hooks are installed but Codex will SILENTLY SKIP them")
        report.next_steps.append(_trust_command(session))
        return None
    for warning in listing["warnings"]:
        report.warnings.append(f"codex: {warning}")
    for error in listing["errors"]:
        report.warnings.append(f"codex: {error.get('path', '')}: {error.get('message', error)}")
    missing = len(expected) - len(listed)
    if missing:
        why = "; ".join(reasons) or "see the codex warnings above"
        report.problems.append(
            f"Codex does not list {missing} of our {len(expected)} hooks in {target.file} "
            f"({why}); their trust was not recorded"
        )
        report.next_steps.append(_trust_command(session))
    report.trust["hooks"] = [
        {"key": h["key"], "event": h.get("eventName"), "hash": h["currentHash"], "before": h.get("trustStatus")}
        for h in listed.values()
    ]
    return {key: h["currentHash"] for key, h in listed.items()}


def _match(listing: dict[str, Any], expected: dict[tuple[str, int, int], dict], path: Path) -> dict[str, dict]:
    found = {}
    for hook in listing["hooks"]:
        if not isinstance(hook, dict) or not codex_trust.same_file(str(hook.get("sourcePath", "")), path):
            continue
        parts = codex_trust.split_key(str(hook.get("key", "")))
        if parts is None or not isinstance(hook.get("currentHash"), str):
            continue
        want = expected.get(parts[1:])
        if want and hook.get("command") == want["command"] and hook.get("matcher") == want["matcher"]:
            found[hook["key"]] = hook
    return found


def _verify_trust(session: Session, trusted: dict[str, str]) -> None:
    """Ask Codex again: every hook we trusted must now be listed as trusted."""
    opts, target, report = session.opts, session.target, session.report
    binary = find_codex(session.binary, opts.env)
    assert binary is not None and report.trust is not None
    cwd = _list_cwd(target)
    try:
        with AppServer(binary, cwd=cwd, env=_codex_env(opts, target), timeout=opts.trust_timeout) as server:
            status = {h.get("key"): h.get("trustStatus") for h in server.list_hooks(cwd)["hooks"]}
    except CodexServerError as exc:
        report.problems.append(f"could not confirm trust with codex app-server: {exc}")
        return
    not_trusted = sorted(k for k in trusted if status.get(k) != "trusted")
    for entry in report.trust["hooks"]:
        entry["after"] = status.get(entry["key"])
    if not_trusted:
        report.trust["summary"] = f"{len(trusted) - len(not_trusted)} of {len(trusted)} hooks trusted"
        report.problems.append(f"Codex still does not trust {len(not_trusted)} hook(s): {', '.join(not_trusted)}")
    else:
        report.trust["summary"] = (
            f"{len(trusted)} hooks trusted (keys and hashes from `codex app-server` "
            f"hooks/list, confirmed trusted by a second hooks/list)"
        )


def uninstall(session: Session) -> None:
    """Our hooks out of hooks.json; the trust entries of foreign hooks follow them if they move, ours go."""
    target, report = session.target, session.report
    assert target.host_home is not None  # a codex target
    snap = session.checked(target.file)
    existing = jsonhooks.read(snap)
    config_path = target.host_home / "config.toml"
    config_snap, config_text, config = _read_config(config_path)
    if existing is None:
        report.files.append(FileChange(target.file, "absent"))
        return
    result = hooktable.unmerge(existing, keep_hooks_key=True)  # Codex requires "hooks" in hooks.json
    jsonhooks.mixed_warning(report, target.file, result.mixed)
    before = _positions(existing)
    plan = codex_trust.plan_state(config, target.file, before=set(before), kept=set(), moved=result.moved)
    try:
        new_config = codex_trust.apply_state(config_text, plan)
    except tomledit.TomlEditError as exc:
        raise InstallError(f"{config_path}: {exc}; nothing was written") from None
    jsonhooks.apply_unmerge(session, snap, result)
    change = write(config_snap, new_config)
    if change.change != "unchanged":
        change.detail = _config_detail(plan, None)
        report.files.append(change)
    if target.project is not None:
        report.next_steps.append("Codex project trust ([projects.…] trust_level) is left as it was")
    if result.deleted:
        session.prune()
