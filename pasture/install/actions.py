"""``pasture install`` / ``pasture uninstall``: put the adapter where the host reads it, or take
ours back out, and say what was done.

The host decides where (``HOST.target``), which contract fits (``HOST.pick_contract``), how the adapter
is merged in and taken out (``HOST.install`` / ``HOST.uninstall``) and its trust step (``HOST.trust``);
what is the same for every host is here: the contract chosen and rendered, the warnings about the
project as a whole, the report. Nothing is written until every input has been read and checked; then
each file is replaced atomically (files.replace).
"""

from __future__ import annotations

from typing import Iterable

from pasture.install import files
from pasture.install.adapter import Adapter, load_adapter
from pasture.install.hostview import InstallHost
from pasture.install.report import InstallError, Report
from pasture.install.session import Options, Session
from pasture.install.targets import Target, TargetError, choose_contract

__all__ = ["Options", "run_install", "run_uninstall"]


def _session(opts: Options, the_host: InstallHost) -> Session:
    try:
        target = the_host.target(opts.project, opts.env)
    except TargetError as exc:
        raise InstallError(str(exc)) from None
    report = Report("install", opts.harness, target.scope, project=target.project)
    binary = opts.binaries.get(the_host.binary_flag)
    return Session(opts, target, report, binary=binary, flags=the_host.install_flags)


def _adapter(session: Session, the_host: InstallHost) -> Adapter:
    from pasture.profile.diagnostics import ProfileErrors

    opts, report = session.opts, session.report
    try:
        contract_id, why = choose_contract(opts.root, the_host, opts.contract, opts.env, session.binary)
        adapter = load_adapter(opts.root, contract_id, the_host)
    except TargetError as exc:
        raise InstallError(str(exc)) from None
    except ProfileErrors as exc:
        raise InstallError(
            "the contract's profile is invalid:\n" + "\n".join(p.render() for p in exc.problems)
        ) from None
    report.contract, report.contract_reason = contract_id, why
    report.events = adapter.events
    if adapter.stale_generated:
        report.warnings.append(
            f"{adapter.stale_generated} differs from its profile; installed the rendering of "
            f"the profile (run `pasture generate` to refresh generated/)"
        )
    return adapter


def run_install(opts: Options, the_host: InstallHost, hosts: Iterable[InstallHost] = ()) -> Report:
    """Install ``opts.harness``'s adapter; ``the_host`` is that host, ``hosts`` every host (the command line
    reads the registry): what the report says of another host's files (its settings' env block, its adapter
    that reads PASTURE_BIN) names that host."""
    hosts = tuple(hosts)
    session = _session(opts, the_host)
    session.pasture_bin_readers = tuple(h.pasture_bin_reader for h in hosts if h.pasture_bin_reader)
    _refuse_folder(session)
    session.adapter = _adapter(session, the_host)
    _user_scope_warning(the_host, session)
    _injected_env_warning(session, hosts)
    if not opts.trust_only:
        from pasture.install import offswitch

        offswitch.check(session, opts.force)  # a repository that switches the host's hooks off: refuse
        the_host.install(session)
        _starter_policy(session)
    the_host.trust(session)
    return session.report


def _starter_policy(session: Session) -> None:
    """A user without a policy gets one naming the recommended packs (which apply anyway), so the choice is
    visible and editable; said in the report. An existing policy is never touched."""
    from pasture.install import starter

    written, problem = starter.ensure(session.opts.env)
    if problem:
        session.report.warnings.append(problem)
    elif written is not None:
        session.report.starter_policy = str(written)


def run_uninstall(opts: Options, the_host: InstallHost) -> Report:
    session = _session(opts, the_host)
    session.report.action = "uninstall"
    _refuse_folder(session)
    the_host.uninstall(session)
    return session.report


def _refuse_folder(session: Session) -> None:
    """A folder where the host's file goes: refused before anything (the launcher too) is written."""
    try:
        files.refuse_folder(session.target.file)
    except files.NotAFile as exc:
        raise InstallError(f"{exc} (nothing was written)") from None


def _injected_env_warning(session: Session, hosts: Iterable[InstallHost]) -> None:
    """Issue 18: a project's host settings whose env block sets a root of the guard (the hooks ignore those
    values, but the user's own are lost and LD_*/BASH_ENV act before pasture runs)."""
    opts = session.opts
    if opts.project is None:
        return
    from pasture.install.envblock import host_of, injected_by_file

    hosts = list(hosts)
    project = str(opts.project.resolve())
    for path, names in sorted(injected_by_file(project, project).items()):
        host = host_of(path, hosts)
        session.report.warnings.append(
            f'{path} sets {", ".join(names)} in its "env" block, which '
            f"{host.display_name if host else 'its host'} hands to "
            f"every hook: the hooks ignore those values; remove them (pasture doctor flags them "
            f"until then)"
        )


def _user_scope_warning(the_host: InstallHost, session: Session) -> None:
    """A project install while pasture's hooks are installed for the user too: the host runs both."""
    opts, target = session.opts, session.target
    if target.scope != "project":
        return
    user: Target = the_host.target(None, opts.env)
    try:
        text = user.file.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return
    from pasture.install.places import Installation

    if isinstance(the_host.read_installation(user, text), Installation):
        session.report.warnings.append(
            f"pasture's hooks are also installed for the user ({user.file}); the host runs both "
            f"(`pasture uninstall {opts.harness} --user` removes those)"
        )
