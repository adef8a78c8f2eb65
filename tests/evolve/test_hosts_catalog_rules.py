"""`pasture validate` closes every profile against its host version's own catalog.

Each test edits one committed profile in a throwaway copy of the project and checks the exact
problem (file:line:col, the nearest catalog name, what to do) and that `generate` writes nothing.
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from profiles_found import contract_ids, newest

from pasture.cli import main

CLAUDE = newest("claude-code")


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _lifecycle(project, contract):
    return project / "profiles" / contract / "lifecycle.yaml"


def _edit(project, contract, old, new, count=1):
    path = _lifecycle(project, contract)
    text = path.read_text()
    assert text.count(old) >= count, old
    path.write_text(text.replace(old, new, count))


def _line_of(project, contract, needle):
    for n, line in enumerate(_lifecycle(project, contract).read_text().splitlines(), 1):
        if needle in line:
            return n
    raise AssertionError(needle)


def _refused(project):
    result = _cli("--root", project, "validate")
    assert result.exit_code == 2, result.output
    generate = _cli("--root", project, "generate")
    assert generate.exit_code == 2 and not (project / "generated").exists()
    return result.stderr


def test_committed_copy_validates(project):
    assert _cli("--root", project, "validate").exit_code == 0


def test_a_renamed_event_names_the_nearest_catalog_spelling(project):
    line = _line_of(project, CLAUDE, "- name: PreToolUse")
    _edit(project, CLAUDE, "- name: PreToolUse", "- name: pretooluse")
    err = _refused(project)
    assert (
        f"profiles/{CLAUDE}/lifecycle.yaml:{line}:11: {CLAUDE} event pretooluse field 'name': 'pretooluse' is not "
        f"an event of {CLAUDE}: the host's own catalog (captures/{CLAUDE}/catalog.json) does not name it; nearest "
        "catalog name: 'PreToolUse'\n  fix: write 'PreToolUse' (names are exact and case-sensitive)"
    ) in err
    # ...and the real PreToolUse is now missing: the gate would be gone at hook time.
    assert "has the event 'PreToolUse', which this profile neither lists nor excludes" in err


def test_an_unknown_event_is_refused(project):
    _edit(project, CLAUDE, "  - name: Setup\n", "  - name: FooBar\n")
    err = _refused(project)
    assert "'FooBar' is not an event of" in err and "remove the row, or re-extract the catalog" in err


def test_a_dropped_event_must_be_listed_as_excluded_with_a_reason(project):
    text = _lifecycle(project, CLAUDE).read_text()
    start = text.index("  - name: DirectoryAdded\n")
    end = text.find("\n  - name: ", start + 1)
    body = text[:start] + (text[end + 1 :] if end != -1 else "")
    _lifecycle(project, CLAUDE).write_text(body)
    err = _refused(project)
    assert re.search(
        rf"profiles/{re.escape(CLAUDE)}/lifecycle.yaml:\d+:1: {re.escape(CLAUDE)} field 'events': the "
        r"host's own catalog .* has the event 'DirectoryAdded', which this profile neither lists nor "
        r"excludes\n  fix: add a row for DirectoryAdded \(`pasture bump` derives one\), or list it under "
        r"'excluded:' with a reason",
        err,
    ), err
    path = _lifecycle(project, CLAUDE)
    path.write_text(path.read_text() + 'excluded:\n  - name: DirectoryAdded\n    reason: ""\n')
    err = _refused(project)
    assert "an excluded event needs a reason" in err
    path.write_text(path.read_text().replace('    reason: ""\n', "    reason: we do not hook folder additions\n"))
    assert _cli("--root", project, "validate").exit_code == 0
    path.write_text(
        path.read_text().replace("  - name: DirectoryAdded\n    reason", "  - name: DirectoryAddded\n    reason")
    )
    err = _refused(project)
    assert "'DirectoryAddded' is not an event of" in err and "write 'DirectoryAdded'" in err


def test_an_identity_field_the_host_does_not_send_is_refused(project):
    """Claude's PermissionRequest carries no request_id (its own schema); Elicitation calls it elicitation_id."""
    _edit(
        project,
        CLAUDE,
        "      - {kind: request, field: elicitation_id, required: false}",
        "      - {kind: request, field: request_id, required: true}",
    )
    err = _refused(project)
    assert (
        "identity field 'request_id' is not in Elicitation's input schema "
        f"(captures/{CLAUDE}/catalog.json); nearest field: 'elicitation_id'\n"
        "  fix: use 'elicitation_id', or drop it and list 'request' under 'unresolved'"
    ) in err


def test_a_required_identity_the_schema_makes_optional_is_refused(project):
    _edit(
        project,
        CLAUDE,
        "      - {kind: request, field: elicitation_id, required: false}",
        "      - {kind: request, field: elicitation_id, required: true}",
    )
    err = _refused(project)
    assert (
        "identity field 'elicitation_id' is declared required, but Elicitation's input schema makes it optional" in err
    ) and "set 'required: false'" in err


def test_a_response_channel_the_output_schema_lacks_is_refused(project):
    contract = newest("codex")  # Codex's PreToolUse output offers deny and ask; its Stop offers neither
    path = _lifecycle(project, contract)
    text = path.read_text()
    stop = text.index("  - name: Stop\n")
    cut = text.index("    pre_action: true\n", stop) + len("    pre_action: true\n")
    path.write_text(text[:cut] + '    response:\n      deny: "@capture-stop-exit-2"\n' + text[cut:])
    err = _refused(project)
    assert "Stop's output schema offers no deny decision (it offers: block (decision))" in err
    assert "fix: remove 'response.deny'" in err


def test_opencode_throw_needs_evidence_and_a_host_that_calls_it(project):
    contract = [c for c in contract_ids("opencode") if c.startswith("opencode@1.")][-1]
    path = _lifecycle(project, contract)
    text = path.read_text()
    start = text.index("  - name: permission.ask\n")
    row = text[start : text.index("\n  - name: ", start + 1)]
    path.write_text(
        text.replace(
            row,
            row.replace("failure: report-and-continue", "failure: throw-fail-fast").replace(
                "blocking: nonblocking", "blocking: blocking"
            ),
        )
    )
    err = _refused(project)
    assert "the host never calls permission.ask: its shipped binary has no call site for it" in err
    assert "throw-fail-fast claims OpenCode honours a throw from permission.ask, but no evidence is cited" in err


def test_a_project_that_keeps_catalogs_needs_one_per_contract(project):
    (project / "captures" / CLAUDE / "catalog.json").unlink()
    err = _refused(project)
    assert f"no host catalog for {CLAUDE}: captures/{CLAUDE}/catalog.json is missing" in err
    _edit(project, CLAUDE, "events:\n", "catalog_unavailable: no package of this version is published\nevents:\n")
    assert _cli("--root", project, "validate").exit_code == 0


@pytest.mark.parametrize("contract_id", ["opencode@2.0.20"])
def test_catalog_unavailable_is_refused_where_a_catalog_exists(project, contract_id):
    (project / "captures" / contract_id).mkdir(parents=True, exist_ok=True)
    (project / "captures" / contract_id / "catalog.json").write_text(
        (project / "captures" / "opencode@1.18.29" / "catalog.json")
        .read_text()
        .replace('"host_version": "1.18.29"', '"host_version": "2.0.20"')
    )
    err = _refused(project)
    assert f"catalog_unavailable is set, but captures/{contract_id}/catalog.json exists" in err


def test_pi_throw_needs_evidence_too(project):
    """The throw rule is the host's (``throw_refuses``), not OpenCode's alone: Pi reads a throw as a refusal."""
    contract = newest("pi")
    _edit(
        project,
        contract,
        '    failure: throw-fail-fast\n    evidence: "@capture-tool-call-throw"\n',
        "    failure: throw-fail-fast\n",
    )
    err = _refused(project)
    assert "throw-fail-fast claims Pi honours a throw from tool_call, but no evidence is cited" in err
    assert "`pasture capture pi`" in err


def test_a_bus_event_row_takes_the_hosts_bus_surface(project):
    contract = [c for c in contract_ids("opencode") if c.startswith("opencode@1.")][-1]
    line = _line_of(project, contract, "surface: opencode-catch-all-sse")
    _edit(project, contract, "surface: opencode-catch-all-sse", "surface: opencode-named-output")
    err = _refused(project)
    assert (
        f"lifecycle.yaml:{line}:14: {contract} event command.executed field 'surface': command.executed is a bus "
        "event in the host's catalog, so its surface is opencode-catch-all-sse" in err
    )


def test_a_named_hooks_output_fields_count_only_where_the_payload_carries_them():
    """OpenCode's plugin hands each hook's input and output (``output_in_payload``): an output field is an
    identity place there, never a required one; a catalog read without it has only the input's fields."""
    from repo_paths import REPO

    from pasture.catalog import find_catalog

    version = [c for c in contract_ids("opencode") if c.startswith("opencode@1.")][-1].partition("@")[2]
    plain = find_catalog(REPO, "opencode", version)
    carried = find_catalog(REPO, "opencode", version, output_in_payload=True)
    assert plain is not None and carried is not None
    assert "args" not in plain.identity_fields("tool.execute.before")
    assert carried.identity_fields("tool.execute.before")["args"] is False
    assert (
        carried.identity_fields("tool.execute.before")["callID"]
        is plain.identity_fields("tool.execute.before")["callID"]
    )
