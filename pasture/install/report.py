"""What an install or uninstall did, for people (``render_text``) and for programs (``as_json``).

Exit codes: 0 done; 2 usage or input error, nothing was written; 3 the adapter file was written
but the host will not run it yet (Codex trust could not be recorded): the report says exactly
which command finishes the job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pasture import PastureError

EXIT_OK, EXIT_ERROR, EXIT_INCOMPLETE = 0, 2, 3


class InstallError(PastureError):
    """Refused before anything was written (exit 2)."""

    def __init__(self, message: str, hint: str | None = None, command: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint  # what to do, in words
        self.command = command  # or the exact command that does it


@dataclass
class FileChange:
    path: Path
    change: str  # created | updated | unchanged | removed | absent
    backup: Path | None = None
    detail: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "change": self.change,
            "backup": str(self.backup) if self.backup else None,
            "detail": self.detail,
        }


@dataclass
class Report:
    action: str  # install | uninstall
    harness: str
    scope: str
    contract: str | None = None
    contract_reason: str = ""
    project: Path | None = None
    files: list[FileChange] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    trust: dict[str, Any] | None = None
    #: the hook launcher install wrote and checked (pasture.install.launcher); None on uninstall
    launcher: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # the host will not run our hooks: exit 3
    next_steps: list[str] = field(default_factory=list)
    #: the starter user policy this install wrote (pasture.install.starter), or None
    starter_policy: str | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_INCOMPLETE if self.problems else EXIT_OK

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": not self.problems,
            "exit_code": self.exit_code,
            "action": self.action,
            "harness": self.harness,
            "scope": self.scope,
            "project": str(self.project) if self.project else None,
            "contract": self.contract,
            "contract_reason": self.contract_reason,
            "files": [f.as_json() for f in self.files],
            "events": list(self.events),
            "trust": self.trust,
            "launcher": self.launcher,
            "warnings": list(self.warnings),
            "problems": list(self.problems),
            "next_steps": list(self.next_steps),
            "starter_policy": self.starter_policy,
        }

    def render_text(self) -> str:
        lines = []
        where = f"project {self.project}" if self.project else f"{self.scope} scope"
        if self.contract:
            lines.append(
                f"pasture {self.action} {self.harness} ({where}): contract {self.contract} ({self.contract_reason})"
            )
        else:
            lines.append(f"pasture {self.action} {self.harness} ({where})")
        if self.launcher:
            lines.append(
                f"  {self.launcher['change']:9} {self.launcher['path']} — the hook launcher "
                f"(python {self.launcher['python']}; checked: it runs)"
            )
        for f in self.files:
            extra = f" — {f.detail}" if f.detail else ""
            backup = f" (backup: {f.backup})" if f.backup else ""
            lines.append(f"  {f.change:9} {f.path}{backup}{extra}")
        if self.launcher and self.files:
            lines.append(f"  hooks run: {self.launcher['recorded']} (by absolute path: no variable can swap it)")
        if self.events:
            lines.append(f"  events ({len(self.events)}): {', '.join(self.events)}")
        if self.trust:
            lines.append(f"  {self.harness} trust: {self.trust.get('summary', '')}")
        if self.starter_policy:
            lines.append(
                f"  created   {self.starter_policy} — a starter user policy (you had none): "
                'packs = ["recommended"], the protection packs on by default; edit it to choose'
            )
        for w in self.warnings:
            lines.append(f"warning: {w}")
        if not self.problems:
            lines += [f"next: {step}" for step in self.next_steps]
        return "\n".join(lines) + "\n"

    def render_problems(self) -> str:
        """The loud part (stderr): why the host will not run our hooks yet, and the command that fixes it."""
        if not self.problems:
            return ""
        bar = "!" * 78
        steps = [f"!! {'run' if s.startswith('pasture ') else 'do'}: {s}" for s in self.next_steps]
        lines = [bar, *(f"!! {p}" for p in self.problems), *steps, bar]
        return "\n".join(lines) + "\n"
