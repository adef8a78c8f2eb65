"""A repository that switches a host's hooks off, as ``pasture doctor`` reports it: ``off-switch`` for each
declared switch a project file turns on (pasture.install.offswitch reads the declarations), ``host-env``
for an env file the host loads that moves a root of the guard, ``start-folder`` for a session started
below the folder whose adapter the host reads. Host-neutral: nothing here imports the host registry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from pasture.doctor.findings import Finding
from pasture.install.offswitch import Hit, hits
from pasture.runtime.hostwire import WIRES
from pasture.runtime.hostwire.guarded import module

CHECK = "off-switch"


def _said_already(hit: Hit, said: Sequence[Finding]) -> bool:
    """The host's own doctor check (the switch's ``also``) has reported this file already: one finding per cause."""
    also = hit.also
    return bool(also) and any(f.check == also and f.where == str(hit.file) and f.status != "ok" for f in said)


def findings(harness: str, folder: Path, said: Sequence[Finding] = ()) -> list[Finding]:
    """`off-switch` findings: off where the host's own code shows the switch works, warn where not established."""
    out = []
    for hit in hits(harness, folder):
        if _said_already(hit, said):
            continue
        certain = "" if hit.certain else " (read in the host's code; its effect is not established)"
        out.append(
            Finding(
                CHECK,
                "off" if hit.certain else "warn",
                f"{hit.names} holds {hit.detail}: {hit.why}; pasture's hooks do not hold here{certain}",
                harness,
                fix=hit.fix,
                where=str(hit.file),
            )
        )
    return out


def env_findings(harness: str, start: str, root: str) -> list[Finding]:
    """`host-env`: the host's env files (from the start folder up) that supply a root of the guard. The hook
    drops those values and says so on every call (pasture.runtime.envfiles); doctor names the file."""
    from pasture.runtime import envfiles
    from pasture.runtime.injected import UNREAD

    names = tuple(module(WIRES[harness]).ENV_FILES) if harness in WIRES else ()
    paths = envfiles.find((start, root), names)
    out = []
    for path in paths:
        found = sorted(envfiles.injected([path]))
        if not found:
            continue
        said = "every root variable (unreadable within 1 MiB)" if UNREAD in found else ", ".join(found)
        out.append(
            Finding(
                "host-env",
                "off",
                f"{path} sets {said}, and {harness} loads that file into the environment its hooks inherit: a "
                "repository must not move the guard's policy, trust store or cache (the hook ignores these values "
                "and says so)",
                harness,
                fix=f"remove {said} from {path}",
                where=path,
            )
        )
    return out


def root_only(harness: str) -> bool | str:
    """The wire's PROJECT_ADAPTER_ROOT_ONLY: False, True, or the name of the host's own doctor check that says so."""
    return getattr(module(WIRES[harness]), "PROJECT_ADAPTER_ROOT_ONLY", False) if harness in WIRES else False


def start_findings(
    harness: str, binary: str, start: Path | None, project: Path | None, adapter: Path, covered: bool
) -> list[Finding]:
    """A session started below the folder whose adapter the host reads loads none of it (`cd src; gemini`)."""
    if start is None or project is None or start == project or root_only(harness) is not True:
        return []  # a host whose own check says it (PROJECT_ADAPTER_ROOT_ONLY names that check) is skipped
    return [
        Finding(
            "start-folder",
            "warn" if covered else "off",
            f"{harness} started in {start} loads no project adapter: it reads {adapter} only when started in "
            f"{project} (host behaviour)"
            + ("; the user-scope adapter still runs" if covered else "; nothing of pasture's runs there"),
            harness,
            fix=f"start {binary} in {project}, or install for the user: pasture install {harness} --user",
            where=str(adapter),
        )
    ]


def all_findings(
    harness: str,
    binary: str,
    start: Path | None,
    project: Path | None,
    installs: list,
    env: Mapping[str, str],
    said: list[Finding],
) -> list[Finding]:
    """Everything of this module for one host with adapters `installs` (doctor's call site); `said`: the
    findings so far (a host's own check may have named a switch already)."""
    if project is None:
        return []
    out = findings(harness, project, said)
    if start is not None and start != project:  # a session started there reads that folder's settings
        out += findings(harness, start, said)
    out += env_findings(harness, str(start or project), str(project))
    covered = any(i.target.project is None for i in installs)
    for inst in installs:
        if inst.target.project is not None:
            out += start_findings(harness, binary, start, project, inst.target.file, covered)
    return out
