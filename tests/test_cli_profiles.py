"""explain, schema and the CLI conventions (--root, exit codes) on the profile commands."""

from __future__ import annotations

import json

import jsonschema
import yaml
from profile_fixture import write_project
from repo_paths import REPO


def test_explain_states_declared_and_effective_failure(cli):
    result = cli("--root", str(REPO), "explain", "claude-code@2.1.261", "PermissionRequest")
    assert result.exit_code == 0
    assert "failure: declared exit-2-blocks, effective report-and-continue" in result.stdout
    assert "demotes it to report-and-continue" in result.stdout
    assert "admission: at or above 2.1.261" in result.stdout


def test_explain_cited_row(cli):
    result = cli("--root", str(REPO), "explain", "claude-code@2.1.261", "PreToolUse")
    assert "failure: declared exit-2-blocks, effective exit-2-blocks" in result.stdout
    assert (
        "why: the blocking exit code is cited: captures/claude-code@2.1.261/pre-tool-use-exit-2/scenario.json"
        in result.stdout
    )
    assert "response capability: deny+ask" in result.stdout


def test_explain_unknown_contract_or_event_is_a_usage_error(cli):
    result = cli("--root", str(REPO), "explain", "claude-code@9.9.9", "Stop")
    assert result.exit_code == 2
    assert "no contract 'claude-code@9.9.9'; known: claude-code@2.1.261" in result.stderr
    result = cli("--root", str(REPO), "explain", "codex@0.153.0", "pretooluse")
    assert result.exit_code == 2
    assert "codex@0.153.0 declares no event 'pretooluse' (names are exact and case-sensitive)" in result.stderr


def test_explain_fixture_rows_in_full(tmp_path, cli):
    write_project(tmp_path)
    result = cli("--root", str(tmp_path), "explain", "claude-code@2.1.261", "PostToolUse")
    assert result.stdout == (
        "claude-code@2.1.261 PostToolUse  (profiles/claude-code@2.1.261/lifecycle.yaml:37)\n"
        "admission: at or above 2.1.261\n"
        "semantic: observation: the event is journaled; the gate is never consulted and the host always proceeds\n"
        "surface: claude-command-json\n"
        "blocking: nonblocking: the host does not wait for or act on the hook's answer\n"
        "mutation: none\n"
        "handler order: concurrent-native; reconciliation: none\n"
        "failure: declared report-and-continue, effective report-and-continue\n"
        "  why: the host contract declares report-and-continue for this row: it never blocks, with or without "
        "evidence.\n"
        "identities: none; identity policy: none\n"
        "unresolved identities: tool-call\n"
        "stop loop: not-applicable\n"
        "pre-action: no\n"
        "response capability: none (not a pre-action gate-consultation)\n"
        "answers: none (the output schema in this version's catalog, if it has one, and this row's mutation mode "
        "allow no allow, rewrite, context, feedback or continue answer)\n"
    )


def test_whitespace_evidence_is_no_evidence(tmp_path, cli):
    from profile_fixture import LIFECYCLE

    write_project(tmp_path, LIFECYCLE.replace('evidence: "@hooks"', 'evidence: "   "'))
    result = cli("--root", str(tmp_path), "explain", "claude-code@2.1.261", "PreToolUse")
    assert result.exit_code == 0
    assert "failure: declared exit-2-blocks, effective report-and-continue" in result.stdout


def test_schema_describes_and_accepts_the_committed_profiles(cli):
    for kind in ("lifecycle", "runtime"):
        result = cli("schema", kind)
        assert result.exit_code == 0
        schema = json.loads(result.stdout)
        for path in sorted((REPO / "profiles").glob(f"*/{kind}.yaml")):
            jsonschema.validate(yaml.safe_load(path.read_text()), schema)
            assert path.read_text().startswith(
                f"# yaml-language-server: $schema=../../generated/schema/{kind}.schema.json\n"
            )


def test_schema_rejects_an_unknown_vocabulary_member(cli):
    schema = json.loads(cli("schema", "lifecycle").stdout)
    doc = yaml.safe_load((REPO / "profiles/codex@0.153.0/lifecycle.yaml").read_text())
    doc["events"][0]["semantic"] = "gate"
    try:
        jsonschema.validate(doc, schema)
    except jsonschema.ValidationError as exc:
        assert "'gate' is not one of" in exc.message
    else:
        raise AssertionError("schema accepted a non-member")


def test_no_profiles_folder_is_an_input_error(tmp_path, cli):
    result = cli("--root", str(tmp_path), "validate")
    assert result.exit_code == 2
    assert "no profiles/ folder here" in result.stderr


def test_root_option_after_the_command(tmp_path, cli):
    write_project(tmp_path)
    result = cli("validate", "--root", str(tmp_path))
    assert result.exit_code == 0
