"""Per host: is our adapter where the host reads it, as generated, runnable, and admitted?

An installation is one adapter file at one scope (the project's, or the user's, which applies to
every project). For each one found, the generic checks are here and the host's own are its module's
(``HOST.read_installation``, ``check_adapter``, ``check_launcher``, ``check_session``; the checks of
each adapter kind are :mod:`.installed`):

* ``adapter``: the contract the hooks were installed from can be loaded, and the host's check says our
  adapter is exactly what it renders (for Claude Code, ``disableAllHooks`` is not set either);
* ``launcher``: the binary the hooks record exists and passes its self-test;
* ``host-version``: the installed host's ``--version`` is admitted by that contract, and no contract
  with a higher floor fits it better;
* the host's session checks: codex ``codex-trust`` (every one of our hooks trusted, asked of ``codex
  app-server`` as install does, see :mod:`.codex`) and ``codex-shell`` (Codex runs hooks with
  ``$SHELL -c``; the command line is POSIX sh); claude-code ``claude-start`` (Claude Code reads
  ``.claude/settings.json`` only from the folder it is started in, so a session started below the
  project root loads none of the project's hooks).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from pasture.doctor.findings import DoctorError, Finding
from pasture.doctor.installed import DoctorHost, reinstall, scope_args
from pasture.install.places import Installation
from pasture.install.targets import choose_contract, detect_host_version

__all__ = [
    "Installation",
    "check_adapter",
    "check_host_version",
    "find_installations",
    "reinstall",
    "scope_args",
]


def find_installations(
    the_host: DoctorHost, project: Path | None, env: Mapping[str, str]
) -> tuple[list[Installation], list[Finding]]:
    """Our adapter at the project's scope (when asked about a project) and at the user's."""
    harness = the_host.name
    found: list[Installation] = []
    problems: list[Finding] = []
    targets = ([the_host.target(project, env)] if project is not None else []) + [the_host.target(None, env)]
    for target in targets:
        if target.file.is_dir():
            # Not a finding about the adapter: the doctor cannot read what the host would (exit 2).
            raise DoctorError(
                f"{target.file} is a folder, not a file: {harness} reads its hooks from a file there; "
                "move it out of the way, then run the doctor again"
            )
        try:
            data = target.file.read_bytes()
        except FileNotFoundError:
            continue
        except OSError as exc:
            problems.append(
                Finding(
                    "adapter",
                    "off",
                    f"{target.file} cannot be read ({exc.strerror})",
                    harness,
                    fix=f"make {target.file} readable",
                    where=str(target.file),
                )
            )
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(
                Finding(
                    "adapter",
                    "off",
                    f"{target.file} is not UTF-8: the host cannot read it either",
                    harness,
                    fix=f"fix or move {target.file}, then {reinstall(harness, target)}",
                    where=str(target.file),
                )
            )
            continue
        seen = the_host.read_installation(target, text)
        if isinstance(seen, Finding):
            problems.append(seen)
        elif isinstance(seen, Installation):
            found.append(seen)
    return found, problems


def check_adapter(inst: Installation, root: Path, the_host: DoctorHost) -> tuple[list[Finding], Any]:
    """The adapter check; also returns the loaded Adapter (None when the contract cannot be loaded)."""
    from pasture.install.adapter import load_adapter

    where = str(inst.target.file)
    fix = reinstall(inst.harness, inst.target)
    contract_id = inst.contract
    if contract_id is None:
        return [
            Finding(
                "adapter",
                "off",
                f"{where}: pasture hooks of more than one contract (or unreadable ones)",
                inst.harness,
                fix=fix,
                where=where,
            )
        ], None
    try:
        adapter = load_adapter(root, contract_id, the_host)
    except Exception as exc:  # a contract this pasture does not have, or an invalid profile
        return [
            Finding(
                "adapter",
                "off",
                f"{where}: installed from contract {contract_id}, which this pasture "
                f"cannot load ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})",
                inst.harness,
                fix=fix,
                where=where,
            )
        ], None
    return the_host.check_adapter(inst, adapter), adapter


def check_host_version(
    inst: Installation,
    adapter: Any,
    root: Path,
    env: Mapping[str, str],
    the_host: DoctorHost,
    binary: str | None = None,
) -> list[Finding]:
    if adapter is None:
        return []
    version, seen = detect_host_version(the_host, binary, env)
    contract = adapter.contract
    fix = reinstall(inst.harness, inst.target)
    if version is None:
        return [
            Finding(
                "host-version",
                "warn",
                f"cannot tell which {inst.harness} is installed ({seen}); the adapter "
                f"is for {contract.id} ({contract.admission.describe()})",
                inst.harness,
                fix=f"put {the_host.binary} on PATH, then run `pasture doctor` again",
            )
        ]
    if not contract.admission.allows(version):
        return [
            Finding(
                "host-version",
                "off",
                f"{seen}, which contract {contract.id} does not admit "
                f"({contract.admission.describe()}): its rows may not match what this host sends",
                inst.harness,
                fix=fix,
            )
        ]
    try:
        best, _why = choose_contract(root, the_host, None, env, binary)
    except Exception:  # noqa: BLE001 - no better contract can be named
        best = contract.id
    if best != contract.id:
        return [
            Finding(
                "host-version",
                "warn",
                f"{seen}: admitted by {contract.id}, but {best} fits it better (a higher floor)",
                inst.harness,
                fix=fix,
            )
        ]
    return [Finding("host-version", "ok", f"{seen}: admitted by {contract.id}", inst.harness)]
