"""Issue 18 for the doctor: what a repository injects into the hooks' environment, and tampering.

* ``host-env``: a project host-settings file (Claude Code's ``.claude/settings.json`` and
  ``settings.local.json``, from the folder asked about up to ``/``) whose ``env`` block sets a
  variable that places the guard's roots or shapes what it runs. The runtime ignores such a value
  (pasture.runtime.injected), but a variable it cannot screen (``LD_PRELOAD``, ``BASH_ENV``) acts before
  pasture runs, and the user's own value of a screened one is lost: enforcement is not what the user
  believes, so it is ``off``.
* ``tamper``: the policy compiled afresh from every layer's bytes, compared with what the hook would
  load from its cache (a cache that fails verification, or verifies and differs, was rewritten by
  something other than pasture); every trust entry checked against its file.

Checked before the runtime view loads the policy: that load rewrites a cache that fails verification,
and the evidence with it.
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping

from pasture.doctor.findings import Finding
from pasture.install.envblock import EnvBlockHost, host_of, injected_by_file


def check_host_env(start: str, root: str, hosts: Iterable[EnvBlockHost]) -> list[Finding]:
    """``hosts``: the hosts checked; the finding names the one whose settings file it is (its env block)."""
    hosts = list(hosts)
    findings = []
    for path, names in sorted(injected_by_file(start, root).items()):
        host = host_of(path, hosts)
        findings.append(
            Finding(
                "host-env",
                "off",
                f'{path} sets {", ".join(names)} in its "env" block, which '
                f"{host.display_name if host else 'its host'} applies to "
                "every hook: a repository must not move the guard's policy, trust store, cache or runtime (the hook "
                "ignores these values and says so, but loses yours, and LD_*/BASH_ENV act before it runs)",
                host.name if host else None,
                fix=f'remove {", ".join(names)} from the "env" block of {path}',
                where=path,
            )
        )
    return findings


def check_cache(root: str, env: Mapping[str, str]) -> list[Finding]:
    """The cache the hook would load for ``root``, against the policy compiled afresh from its files."""
    from pasture.runtime import effective, layers

    env = dict(env)
    cache = effective.cache_path(root, env)
    fix_cache = (
        f"rm {cache}  (the hook rebuilds it), then find what wrote it: pasture's cache and state folders "
        "must be writable by you alone"
    )
    secret, problem = effective.cache_key(env)
    if problem:
        return [
            Finding(
                "tamper",
                "off",
                f"{problem}: the hook cannot verify its policy cache",
                fix=(f"rm {layers.cache_key_path(env)}  (a new key is made on the next hook)"),
            )
        ]
    if secret is None:
        return []
    stored, problem = effective.read_cache(cache, secret)
    if problem:
        return [
            Finding(
                "tamper",
                "off",
                f"{problem}: something other than pasture rewrote the compiled policy "
                "(the hook does not believe it and compiles the policy again)",
                fix=fix_cache,
                where=cache,
            )
        ]
    key, sources, trust_bytes = effective.sources_of(root, env)
    if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0] == key):
        return []  # absent or stale: the hook compiles afresh, nothing to compare
    fresh = effective.build(root, env, sources, trust_bytes)
    if stored[1] != fresh:
        return [
            Finding(
                "tamper",
                "off",
                f"the compiled policy in {cache} is signed with your key but differs from "
                "the policy its files compile to: the key or the cache was rewritten",
                where=cache,
                fix=f"rm {cache} {layers.cache_key_path(env)}, then find what wrote them",
            )
        ]
    return [Finding("tamper", "ok", f"the compiled policy the hook loads ({cache}) is what every layer compiles to")]


def check_trust(env: Mapping[str, str]) -> list[Finding]:
    """Every entry of the trust store against the file it pins."""
    from pasture.runtime import effective, trust

    env = dict(env)
    path = trust.store_path(env)
    raw = effective._read(path, follow=False)
    if raw is None:
        return []
    if isinstance(raw, tuple):
        return [
            Finding(
                "tamper",
                "off",
                f"the trust store {path} cannot be read ({raw[1]}): no project policy is trusted",
                fix=f"rm {path}, then trust each project again: pasture policy trust --project <root>",
                where=path,
            )
        ]
    try:
        entries = trust.parse(raw, path)
    except trust.TrustStoreError as exc:
        return [
            Finding("tamper", "off", str(exc), fix=f"rm {path}, then pasture policy trust --project <root>", where=path)
        ]
    findings = []
    for policy, entry in sorted(entries.items()):
        root = entry.get("root") or os.path.dirname(os.path.dirname(policy))
        fix = (
            f"read {policy}, then: pasture policy trust --project {root}  (or forget it: "
            f"pasture policy untrust --project {root})"
        )
        data = effective._read(policy)
        if data is None:
            findings.append(Finding("tamper", "warn", f"trust entry {policy}: the file is gone", fix=fix, where=policy))
            continue
        if isinstance(data, tuple):
            findings.append(
                Finding(
                    "tamper", "off", f"trust entry {policy}: the file cannot be read ({data[1]})", fix=fix, where=policy
                )
            )
            continue
        if trust.digest(data) != entry["policy"]:
            findings.append(
                Finding(
                    "tamper",
                    "off",
                    f"trust entry {policy}: the file no longer has the bytes you "
                    "trusted (changed or rewritten since): the hook treats it as untrusted",
                    fix=fix,
                    where=policy,
                )
            )
            continue
        try:
            layer = trust.compiled(policy, root, data)
        except Exception:  # noqa: BLE001 - an invalid policy pins no programs; `policy check` names the problem
            layer = None
        why = trust.holds(entry, policy, root, entry["policy"], layer)
        if why is not None:
            findings.append(
                Finding(
                    "tamper",
                    "off",
                    f"trust entry {policy}: {why}: the hook treats it as untrusted",
                    fix=fix,
                    where=policy,
                )
            )
    if not findings and entries:
        findings.append(
            Finding("tamper", "ok", f"every one of the {len(entries)} trust entries in {path} matches its file")
        )
    return findings
