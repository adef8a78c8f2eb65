"""One doctor run: find the project root, check every host's installations, then the runtime's view
of the project (policy layers and their trust, journal, gates)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from pasture.doctor import installations, managed, offswitch, runtime_view, tamper
from pasture.doctor.findings import DoctorError, Finding, Report
from pasture.doctor.installed import DoctorContext, DoctorHost


@dataclass
class Options:
    project: Path | None  # None with user=True
    user: bool
    root: Path  # the pasture checkout holding profiles/
    env: Mapping[str, str]
    hosts: tuple[str, ...] = ()  # required hosts (--host); empty: every host that is installed
    binaries: Mapping[str, str] = field(default_factory=dict)  # the binary flags given: --codex-bin -> path
    timeout: float = 60.0  # a host's own trust query (codex app-server)
    cwd: Path = field(default_factory=Path.cwd)
    managed: bool = False  # --managed: say where a host has no managed install (or no managed channel)
    managed_root: Path = field(default_factory=lambda: Path("/"))  # where managed installs are looked for


def run(opts: Options, hosts: Mapping[str, DoctorHost]) -> Report:
    """The doctor's report; ``hosts``: harness id -> host, in the order they are checked (the registry)."""
    if opts.user:
        report = Report("user")
        project = None
        start = None
    else:
        start = (opts.project or opts.cwd).resolve()
        if not start.is_dir():
            raise DoctorError(f"--project {start}: no such folder")
        project = Path(runtime_view.find_root(str(start), opts.env))
        report = Report("project", start=str(start), root=str(project))
    absent = []
    if project is not None:  # before anything loads the policy: that load replaces a forged cache
        report.add(*tamper.check_host_env(str(start), str(project), hosts.values()))
        report.add(*tamper.check_cache(str(project), opts.env))
    report.add(*tamper.check_trust(opts.env))
    managed_findings, managed_hosts = managed.findings(hosts, opts.managed_root, opts.env, opts.managed, opts.hosts)
    report.add(*managed_findings)
    found_any = bool(managed_hosts)  # a managed install covers every project and user here
    for harness, the_host in hosts.items():
        installs, problems = installations.find_installations(the_host, project, opts.env)
        report.add(*problems)
        covered = any(i.target.project is None for i in installs)  # the user-scope adapter is there too
        if not installs and not problems:
            if harness in managed_hosts:
                continue
            absent.append(harness)
            if harness in opts.hosts:
                where = f"--project {project}" if project else "--user"
                report.add(
                    Finding(
                        "installed",
                        "off",
                        f"no {harness} adapter is installed for this {'project' if project else 'user'} or its user",
                        harness,
                        fix=f"pasture install {harness} {where}",
                    )
                )
            continue
        found_any = True
        for inst in installs:
            report.add(*_check_installation(the_host, inst, opts, start, covered))
        if installs:
            report.add(*the_host.check_environment(project, opts.env, installs))
            report.add(
                *offswitch.all_findings(harness, the_host.binary, start, project, installs, opts.env, report.findings)
            )
    if not found_any:
        where = f"--project {project}" if project else "--user"
        report.add(
            Finding(
                "installed",
                "off",
                "no pasture adapter is installed for any host: nothing enforces a policy here",
                None,
                fix=f"pasture install <{'|'.join(hosts)}> {where}",
            )
        )
    report.absent = absent
    if project is not None:
        report.add(*_runtime_findings(str(project), str(start), opts.env))
    return report


def _check_installation(
    the_host: DoctorHost, inst: installations.Installation, opts: Options, start: Path | None, covered: bool
) -> list[Finding]:
    binary = opts.binaries.get(the_host.binary_flag)
    findings, adapter = installations.check_adapter(inst, opts.root, the_host)
    findings += the_host.check_launcher(inst, opts.env)
    findings += installations.check_host_version(inst, adapter, opts.root, opts.env, the_host, binary)
    ctx = DoctorContext(opts.env, start, covered, binary, opts.timeout)
    return findings + the_host.check_session(inst, ctx)


def _runtime_findings(root: str, start: str, env: Mapping[str, str]) -> list[Finding]:
    findings: list[Finding] = []
    from pasture.runtime.project import ignored_markers

    how = (
        "the repository's top level, the nearest folder above holding .git"
        if os.path.exists(os.path.join(root, ".git"))
        else "the nearest folder above holding .pasture/"
        if os.path.isdir(os.path.join(root, ".pasture"))
        else "no .pasture/ or .git above: the folder itself"
    )
    findings.append(
        Finding(
            "project-root",
            "ok",
            f"the runtime's project root for a session started in {start}: "
            f"{root} ({how}); policy and journal hang off it",
        )
    )
    for marker in ignored_markers(start):  # one project, one layer
        findings.append(
            Finding(
                "project-root",
                "warn",
                f"{marker} is below the project root {root} and is ignored: "
                f"the project layer is {root}/.pasture/policy.toml",
                fix=f"rm -r {marker}",
                where=marker,
            )
        )
    try:
        view = runtime_view.load(root, env)
    except Exception as exc:  # noqa: BLE001 - the runtime's own loader failed: that is the finding
        return findings + [
            Finding(
                "policy",
                "off",
                f"the runtime cannot load the policy layers ({type(exc).__name__}: {exc})",
                fix=f"pasture policy check --project {root}",
            )
        ]
    present = [layer for layer in view.layers if layer.status != "absent"]
    trust_fix = f"pasture policy trust --project {root}  (after reading the policy)"
    for layer in present:
        where = layer.path or layer.name
        if layer.status == "trusted":
            findings.append(
                Finding(
                    "policy",
                    "ok",
                    f"{layer.name} policy {where}: valid" + (", trusted" if layer.name == "project" else ""),
                    where=where,
                )
            )
        elif layer.status == "untrusted" and layer.ignored:
            findings.append(
                Finding(
                    "policy-trust",
                    "off",
                    f"the project policy {where} is not trusted (or changed "
                    f"since): the runtime ignores {'; '.join(layer.ignored)}; its rules still apply",
                    fix=trust_fix,
                    where=where,
                )
            )
        elif layer.status == "untrusted":
            findings.append(
                Finding(
                    "policy-trust",
                    "warn",
                    f"the project policy {where} is not trusted; it only has rules, which apply anyway",
                    fix=trust_fix,
                    where=where,
                )
            )
        else:  # invalid | unreadable: gate rows apply their failure mode unless something denies anyway
            findings.append(
                Finding(
                    "policy",
                    "off",
                    f"{layer.name} policy {layer.status}: {layer.error}",
                    fix=f"fix {where}, then: pasture policy check --project {root}",
                    where=where,
                )
            )
    if not present:
        findings.append(
            Finding(
                "policy",
                "warn",
                f"no policy found for {root}: every gate row proceeds",
                fix=f'write {os.path.join(root, ".pasture", "policy.toml")} (format: README, "The hook runtime")',
            )
        )
    for note in view.notes:
        if "pasture policy trust" in note:
            continue  # the policy-trust finding above says it
        fix = note.rsplit("run: ", 1)[1] if "run: " in note else f"pasture policy show --project {root}"
        findings.append(Finding("policy", "warn", note, fix=fix))
    if view.journal:
        ok, why = runtime_view.journal_writable(view.journal)
        if ok:
            findings.append(Finding("journal", "ok", f"{view.journal} is writable", where=view.journal))
        else:
            findings.append(
                Finding(
                    "journal",
                    "off",
                    f"the journal {view.journal} cannot be written ({why}): events go unrecorded",
                    fix=f"make {os.path.dirname(view.journal) or '.'} writable, or set [journal] path in the policy",
                    where=view.journal,
                )
            )
        torn, first = runtime_view.journal_torn(view.journal)
        if torn:
            findings.append(
                Finding(
                    "journal",
                    "warn",
                    f"{torn} spool line(s) of {view.journal} were not journal "
                    f"records (torn by a full disk or a killed writer, garbage, or forged) and are "
                    f"kept aside, not journaled; the first at {first}",
                    fix=f"pasture journal torn --journal {view.journal}",
                    where=view.journal,
                )
            )
    for gate in view.gates:
        if any(layer.name == gate.layer and layer.status == "untrusted" for layer in view.layers):
            continue  # ignored by the runtime until trusted (the policy-trust finding says so)
        if gate.kind == "command":
            ok, detail = runtime_view.command_reachable(gate.command, root)
            findings.append(
                Finding("gate", "ok", f"{gate.layer} command gate {detail}")
                if ok
                else Finding(
                    "gate",
                    "off",
                    f"{gate.layer} command gate: {detail}; gate rows apply their failure mode on every call",
                    fix="install the gate program, or fix [gate] command",
                )
            )
        elif gate.kind == "ai":
            ok, detail = runtime_view.ai_configured(gate.settings, env)
            if not ok:
                findings.append(
                    Finding(
                        "gate",
                        "off",
                        f"{gate.layer} AI gate: {detail}",
                        fix="set [gate] base_url and model in the policy, and the key in the hosts' environment",
                    )
                )
                continue
            base_url = runtime_view.ai_base_url(gate.settings, env)
            up, answer = runtime_view.ai_reachable(base_url)
            findings.append(
                Finding("gate", "ok", f"{gate.layer} AI gate: {detail}; {answer}")
                if up
                else Finding(
                    "gate",
                    "off",
                    f"{gate.layer} AI gate: {detail}, but {answer}; gate rows apply their failure mode on every call",
                    fix=f"start the model server at {base_url}, or fix [gate] base_url",
                )
            )
        elif gate.kind == "agent":
            ok, detail = runtime_view.agent_reachable(gate.settings, root)
            findings.append(
                Finding("gate", "ok", f"{gate.layer} agent gate: {detail}")
                if ok
                else Finding(
                    "gate",
                    "off",
                    f"{gate.layer} agent gate: {detail}; gate rows apply their failure mode on every call",
                    fix="install the host, or fix [gate] binary",
                )
            )
    return findings
