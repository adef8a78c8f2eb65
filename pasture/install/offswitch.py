"""``pasture install`` against a repository that already switches the host's hooks off (issue 28).

The host's declared off-switches (pasture/runtime/hostwire/<host>.py ``OFF_SWITCHES``, read by
pasture.doctor.offswitch) in the folder the host starts in: a project install refuses (exit 2, nothing
written) naming each file and key, unless ``--force``, which installs and says the guard is off there; a
user install warns about the current folder (the repository's switch turns the user's hooks off too). A
switch read in the host's code whose effect is not established only warns.
"""

from __future__ import annotations

from pathlib import Path

from pasture.doctor.offswitch import hits
from pasture.install.report import InstallError
from pasture.install.session import Session


def check(session: Session, force: bool) -> None:
    opts, report = session.opts, session.report
    project = opts.project
    folder = (project if project is not None else Path.cwd()).resolve()
    found = hits(opts.harness, folder)
    blocking = [hit for hit in found if hit.certain and project is not None]
    if blocking and not force:
        lines = "; ".join(f"{hit.names} holds {hit.detail}: {hit.why} (fix: {hit.fix})" for hit in blocking)
        raise InstallError(
            f"this repository already switches {opts.harness}'s hooks off, so pasture's adapter would not run: "
            f"{lines}; nothing was written",
            hint="fix those files and run the command again, or add --force to install anyway (the guard stays "
            "off until they are fixed; pasture doctor says so)",
        )
    for hit in found:
        if hit in blocking:
            report.warnings.append(
                f"installed anyway (--force): the guard is OFF here while {hit.names} holds {hit.detail} "
                f"({hit.why}); fix: {hit.fix}"
            )
        elif hit.certain:
            report.warnings.append(
                f"{hit.names} holds {hit.detail}: {hit.why}, so a session started in {folder} runs without "
                f"pasture's hooks; fix: {hit.fix}"
            )
        else:
            report.warnings.append(
                f"{hit.names} holds {hit.detail}: {hit.why} (read in the host's code; its effect is not "
                f"established); fix: {hit.fix}"
            )
