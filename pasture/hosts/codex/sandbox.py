"""Codex's OS sandbox, for ``pasture doctor`` (pasture.doctor.sandbox says what each host's keeps from
the agent's commands): ``sandbox_mode`` in ``$CODEX_HOME/config.toml``, of the selected ``profile`` first."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from pasture.doctor.findings import Finding
from pasture.doctor.sandbox import read_capped
from pasture.hosts.codex.home import codex_home


def codex(project: Path | None, env: Mapping[str, str]) -> list[Finding]:
    import tomllib

    config = codex_home(env) / "config.toml"
    text = read_capped(config)
    try:
        doc = tomllib.loads(text) if text is not None else {}
    except tomllib.TOMLDecodeError:
        doc = {}
    mode, where = doc.get("sandbox_mode"), "sandbox_mode"
    profile = doc.get("profile")
    profiles = doc.get("profiles")
    profiles = profiles if isinstance(profiles, dict) else {}
    chosen = profiles.get(profile) if isinstance(profile, str) else None
    if isinstance(chosen, dict) and "sandbox_mode" in chosen:
        mode, where = chosen["sandbox_mode"], f"profiles.{profile}.sandbox_mode"
    fix = (
        f'set sandbox_mode = "workspace-write" in {config} (and do not start codex with --sandbox '
        "danger-full-access or --dangerously-bypass-approvals-and-sandbox)"
    )
    inside = f"{project / '.pasture'}" if project is not None else "a project's .pasture/"
    if mode == "read-only":
        return [
            Finding(
                "sandbox",
                "ok",
                f"Codex's OS sandbox is read-only ({config}: {where}): the agent's commands "
                "cannot change the guard's files",
                "codex",
            )
        ]
    if mode == "workspace-write":
        return [
            Finding(
                "sandbox",
                "warn",
                f"Codex's OS sandbox is workspace-write ({config}: {where}): the user's "
                "policy, the trust store and pasture's state cannot be written by the agent's commands, but "
                f"{inside} is inside the workspace they may write (only the hooks guard it)",
                "codex",
                fix="keep the rules that must hold in the user layer (~/.config/pasture/policy.toml or "
                "$PASTURE_POLICY), which the sandbox keeps the agent's commands from writing",
                where=str(config),
            )
        ]
    if not isinstance(mode, str):
        return [
            Finding(
                "sandbox",
                "warn",
                f"Codex's sandbox_mode is not set in {config}: Codex picks read-only until "
                "a folder is trusted and workspace-write once it is (a trusted project's .pasture/ stays "
                "writable), and a command-line flag can switch it off",
                "codex",
                fix=fix,
                where=str(config),
            )
        ]
    return [
        Finding(
            "sandbox",
            "warn",
            f"Codex's OS sandbox is {mode} ({config}: {where}): nothing keeps a program "
            "the agent writes and runs from changing the guard's files",
            "codex",
            fix=fix,
            where=str(config),
        )
    ]
