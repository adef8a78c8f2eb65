"""What `pasture doctor` found, for people (``render_text``) and programs (``as_json``).

Each finding is one check on one host (or the project): ``ok`` (live), ``warn`` (worth knowing,
enforcement is not off because of it) or ``off`` (enforcement is not what the user believes: exit
1). Every finding that is not ``ok`` names its exact fix: a command to run where one exists, else
the action in words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pasture import PastureError

EXIT_LIVE, EXIT_OFF, EXIT_ERROR = 0, 1, 2
STATUSES = ("ok", "warn", "off")


class DoctorError(PastureError):
    """The doctor itself could not run (bad arguments, unreadable input): exit 2."""


@dataclass
class Finding:
    check: str  # adapter | launcher | host-version | codex-trust | codex-project | claude-start | codex-shell |
    # codex-unhooked | installed | project-root | policy | policy-trust | journal | gate | sandbox | host-deny |
    # off-switch | start-folder | host-env | managed | managed-lockout | managed-launcher | managed-gap
    status: str  # ok | warn | off
    message: str
    host: str | None = None  # the harness, or None for project-wide checks
    fix: str | None = None  # the exact command (or action) that fixes it
    where: str | None = None  # the file the finding is about
    # a warning that leaves open whether the host runs our hooks at all, as when the host could not be asked
    # (issue 18: doctor never says "on" then)
    unconfirmed: bool = False

    def __post_init__(self) -> None:
        assert self.status in STATUSES, self.status
        assert self.status == "ok" or self.fix, f"finding without a fix: {self.message}"

    def as_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "host": self.host,
            "status": self.status,
            "message": self.message,
            "fix": self.fix,
            "where": self.where,
        }


@dataclass
class Report:
    scope: str  # project | user
    start: str | None = None  # where the doctor was asked about (project scope)
    root: str | None = None  # the project root found from it
    findings: list[Finding] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)  # hosts with no adapter here (nothing to check)

    def add(self, *findings: Finding) -> None:
        self.findings.extend(findings)

    @property
    def exit_code(self) -> int:
        return EXIT_OFF if any(f.status == "off" for f in self.findings) else EXIT_LIVE

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": self.exit_code == EXIT_LIVE,
            "exit_code": self.exit_code,
            "scope": self.scope,
            "start": self.start,
            "root": self.root,
            "not_installed": list(self.absent),
            "findings": [f.as_json() for f in self.findings],
        }

    def render_text(self) -> str:
        where = (
            f"project {self.root}" + (f" (asked from {self.start})" if self.start and self.start != self.root else "")
            if self.scope == "project"
            else "user scope"
        )
        lines = [f"pasture doctor: {where}"]
        for f in self.findings:
            host = f.host or "project"
            lines.append(f"  {f.status:4} {host:12} {f.check:14} {f.message}")
            if f.status != "ok" and f.fix:
                lines.append(f"  {'':4} {'':12} {'':14} fix: {f.fix}")
        if self.absent:
            lines.append(f"  not installed here (nothing to check): {', '.join(self.absent)}")
        off = [f for f in self.findings if f.status == "off"]
        warn = [f for f in self.findings if f.status == "warn"]
        unconfirmed = [f for f in warn if f.unconfirmed]
        if off:
            lines.append(f"enforcement is NOT fully on here: {len(off)} finding(s) marked off; each names its fix.")
        elif unconfirmed:  # whether the host runs our hooks at all could not be asked: never "on"
            hosts = ", ".join(sorted({f.host or "project" for f in unconfirmed}))
            lines.append(
                f"enforcement is NOT confirmed here: whether {hosts} runs pasture's hooks could not be "
                "checked; each warning names its fix."
            )
        else:
            lines.append("enforcement is on here" + (f" ({len(warn)} warning(s))." if warn else "."))
        return "\n".join(lines) + "\n"

    def render_json(self) -> str:
        return json.dumps(self.as_json(), indent=2, ensure_ascii=False)
