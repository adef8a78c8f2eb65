"""Every profile rule, broken one at a time: the exact diagnostic and exit status 2."""

from __future__ import annotations

import pytest
from profile_fixture import LIFECYCLE as L
from profile_fixture import RUNTIME as R
from profile_fixture import write_project

CASES = {
    "enum": (
        L.replace(
            "semantic: gate-consultation\n    surface: claude-command-json\n"
            "    blocking: blocking\n    mutation: input",
            "semantic: gate\n    surface: claude-command-json\n    blocking: blocking\n    mutation: input",
        ),
        R,
    ),
    "unknown_field": (L.replace("    pre_action: true\n", "    pre_action: true\n    prea_ction: true\n"), R),
    "missing_field": (
        L.replace("    order: concurrent-native\n    reconciliation: none\n", "    reconciliation: none\n"),
        R,
    ),
    "dup_key": (L.replace("    mutation: input\n", "    mutation: input\n    mutation: none\n"), R),
    "padded_name": (L.replace("- name: Stop", '- name: " Stop"'), R),
    "dup_name": (L.replace("- name: PostToolUse", "- name: Stop"), R),
    "antigravity": (L.replace("contract: claude-code@2.1.261", "contract: antigravity@1.0.0"), R),
    "pi": (L.replace("contract: claude-code@2.1.261", "contract: pi@0.1.0"), R),
    "bad_harness": (L.replace("contract: claude-code@2.1.261", "contract: cursor@2.1.261"), R),
    "bad_version_id": (L.replace("contract: claude-code@2.1.261", "contract: claude-code@2.1"), R),
    "padded_floor": (L.replace("floor: 2.1.261", 'floor: " 2.1.261"'), R),
    "garbage_floor": (L.replace("floor: 2.1.261", "floor: latest"), R),
    "empty_floor": (L.replace("floor: 2.1.261", 'floor: ""'), R),
    "floor_prerelease": (L.replace("floor: 2.1.261", "floor: 2.1.261\n  include_prereleases: true"), R),
    "two_shapes": (L.replace("floor: 2.1.261", "floor: 2.1.261\n  exact: 2.1.261"), R),
    "range_inverted": (L.replace("floor: 2.1.261", "from: 2.1.261\n  through: 2.1.0"), R),
    "range_pre_noflag": (L.replace("floor: 2.1.261", "from: 2.1.261\n  through: 2.2.0-rc.1"), R),
    "id_mismatch": (L.replace("floor: 2.1.261", "floor: 2.1.200"), R),
    "float_version": (L.replace("floor: 2.1.261", "exact: 2.1"), R),
    "wrong_surface": (
        L.replace(
            "- name: Stop\n    semantic: gate-consultation\n    surface: claude-command-json",
            "- name: Stop\n    semantic: gate-consultation\n    surface: codex-strict-command-json",
        ),
        R,
    ),
    "wrong_arm": (
        L.replace('failure: exit-2-blocks\n    evidence: ""', 'failure: throw-fail-fast\n    evidence: ""'),
        R,
    ),
    "nonblocking_blocks": (L.replace("failure: report-and-continue", "failure: exit-2-blocks"), R),
    "observation_mutates": (
        L.replace(
            "reconciliation: none\n    failure: report-and-continue",
            "reconciliation: none\n    failure: report-and-continue",
        ).replace(
            "semantic: observation\n    surface: claude-command-json\n    blocking: nonblocking\n    mutation: none",
            "semantic: observation\n    surface: claude-command-json\n    blocking: nonblocking\n    mutation: output",
        ),
        R,
    ),
    "stoploop_not_stop": (
        L.replace(
            "    unresolved: [tool-call]\n    stop_loop: not-applicable",
            "    unresolved: [tool-call]\n    stop_loop: consult-when-inactive",
        ),
        R,
    ),
    "dup_identity": (
        L.replace(
            "      - {kind: tool-call, field: tool_use_id, required: true}",
            "      - {kind: tool-call, field: session_id, required: true}",
        ),
        R,
    ),
    "unresolved_declared": (
        L.replace(
            "    unresolved: []\n    stop_loop: not-applicable\n    pre_action: true",
            "    unresolved: [session]\n    stop_loop: not-applicable\n    pre_action: true",
        ),
        R,
    ),
    "evidence_padded": (
        L.replace('evidence: "@hooks"', 'evidence: " https://docs.claude.com/en/docs/claude-code/hooks"'),
        R,
    ),
    "evidence_missing_path": (L.replace('evidence: "@hooks"', "evidence: captures/nowhere.json"), R),
    "evidence_unknown_source": (L.replace('evidence: "@hooks"', 'evidence: "@hook"'), R),
    "response_not_gate": (
        L.replace(
            "    pre_action: false\n  - name: PostToolUse",
            '    pre_action: false\n    response: {deny: "@hooks"}\n  - name: PostToolUse',
        ),
        R,
    ),
    "ask_without_deny": (L.replace('response: {deny: "@hooks", ask: "@hooks"}', 'response: {ask: "@hooks"}'), R),
    "op_missing": (
        L,
        R.replace(
            "  stop_assignment: {class: native, call: TaskStop, arguments: [task_id], result: stopped, "
            "context: none}\n",
            "",
        ),
    ),
    "op_unknown": (L, R.replace("stop_assignment:", "halt_assignment:")),
    "op_wrong_fields": (
        L,
        R.replace(
            "{class: unsupported, reason: no bounded decision tool is bound}",
            "{class: unsupported, call: AskUserQuestion, reason: x}",
        ),
    ),
    "op_team_create": (L, R.replace("call: Agent", "call: TeamCreate")),
    "op_native_nocall": (
        L,
        R.replace(
            "{class: native, call: Skill, arguments: [skill], result: the skill output, context: caller}",
            "{class: native, arguments: [skill], result: the skill output}",
        ),
    ),
    "runtime_contract_mismatch": (L, R.replace("contract: claude-code@2.1.261", "contract: claude-code@2.1.260")),
    "cap_missing": (L, R + "requested_capabilities:\n  - {id: review, version: 1.2.0}\n"),
    "cap_out_of_range": (
        L,
        R + "requested_capabilities:\n  - {id: review, version: 1.2.0}\ncapabilities:\n"
        "  - {id: review, supports: {from: 1.0.0, through: 1.1.9}, class: semantic-instruction, "
        "instruction: review it}\n",
    ),
    "cap_duplicate": (
        L,
        R + "requested_capabilities:\n  - {id: review, version: 1.2.0}\ncapabilities:\n"
        "  - {id: review, supports: {from: 1.0.0, through: 1.9.0}, class: semantic-instruction, "
        "instruction: review it}\n"
        "  - {id: review, supports: {from: 1.0.0, through: 1.9.0}, class: semantic-instruction, "
        "instruction: review it}\n",
    ),
    "cap_conflict": (
        L,
        R + "requested_capabilities:\n  - {id: review, version: 1.2.0}\ncapabilities:\n"
        "  - {id: review, supports: {from: 1.0.0, through: 1.9.0}, class: semantic-instruction, "
        "instruction: review it}\n"
        "  - {id: review, supports: {from: 1.0.0, through: 1.9.0}, class: semantic-instruction, instruction: other}\n",
    ),
    "cap_unrequested": (
        L,
        R + "capabilities:\n  - {id: review, supports: {from: 1.0.0, through: 1.9.0}, class: semantic-instruction, "
        "instruction: review it}\n",
    ),
    "yaml_syntax": (L.replace("  - name: Stop\n", "  - name: Stop\n   bad: [\n"), R),
    "empty_events": (L.split("events:")[0] + "events: []\n", R),
}

EXPECTED = {
    "enum": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:8:15: claude-code@2.1.261 event PreToolUse field 'semantic': "
        "'gate' is not a member of semantic; allowed: observation, gate-consultation, explicit-human-response\n"
        "  fix: use one of: observation, gate-consultation, explicit-human-response\n"
        "1 problem(s); nothing was written.\n"
    ),
    "unknown_field": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:22:5: claude-code@2.1.261 event PreToolUse field 'prea_ction': "
        "unknown field 'prea_ction'\n"
        "  fix: remove it or correct its spelling; allowed fields: name, semantic, surface, blocking, mutation, order, "
        "reconciliation, failure, evidence, identities, unresolved, stop_loop, pre_action, response, matcher, timeout, "
        "note\n"
        "1 problem(s); nothing was written.\n"
    ),
    "missing_field": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:37:5: claude-code@2.1.261 event PostToolUse field 'order': "
        "required field 'order' is missing\n"
        "  fix: add 'order:' to this entry\n"
        "1 problem(s); nothing was written.\n"
    ),
    "dup_key": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:12:5: claude-code@2.1.261: duplicate key 'mutation' (first at "
        "line 11)\n"
        "  fix: remove one of the two entries; YAML keeps only the last, silently\n"
        "1 problem(s); nothing was written.\n"
    ),
    "padded_name": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:23:11: claude-code@2.1.261 event ' Stop' field 'name': native "
        "name ' Stop' is empty or contains whitespace\n"
        "  fix: use the exact native event spelling of the pinned host\n"
        "profiles/claude-code@2.1.261/lifecycle.yaml:35:16: claude-code@2.1.261 event ' Stop' field 'stop_loop': "
        "consult-when-inactive applies only to Stop-family events (Stop, SubagentStop)\n"
        "  fix: set 'stop_loop: not-applicable'\n"
        "2 problem(s); nothing was written.\n"
    ),
    "dup_name": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:37:11: claude-code@2.1.261 event Stop field 'name': duplicate "
        "native name 'Stop' (first at row 2)\n"
        "  fix: each native event appears exactly once; remove or rename one\n"
        "1 problem(s); nothing was written.\n"
    ),
    "antigravity": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:1:11: claude-code@2.1.261 field 'contract': unsupported: no "
        "public contract can be pinned for antigravity (no public event catalog or wire contract exists)\n"
        "  fix: remove profiles/claude-code@2.1.261; supported harnesses: claude-code, codex, opencode, gemini-cli, "
        "copilot-cli, pi, qwen-code, cline\n"
        "1 problem(s); nothing was written.\n"
    ),
    # The seed said "Pi has no adapter profile"; since issue 20 Pi is a harness (profiles/pi@0.73.1/, a
    # generated extension), so a pi contract id is refused only for what is wrong with it here: its folder.
    "pi": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:1:11: claude-code@2.1.261 field 'contract': contract id "
        "'pi@0.1.0' does not match its folder 'claude-code@2.1.261'\n"
        "  fix: rename the folder to profiles/pi@0.1.0/ or correct the id\n"
        "1 problem(s); nothing was written.\n"
    ),
    "bad_harness": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:1:11: claude-code@2.1.261 field 'contract': 'cursor' is not a "
        "member of harness; allowed: claude-code, codex, opencode, gemini-cli, copilot-cli, pi, "
        "qwen-code, cline\n"
        "  fix: use one of: claude-code, codex, opencode, gemini-cli, copilot-cli, pi, qwen-code, cline\n"
        "1 problem(s); nothing was written.\n"
    ),
    "bad_version_id": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:1:11: claude-code@2.1.261 field 'contract': host version '2.1' is "
        "not a semantic version; write MAJOR.MINOR.PATCH with an optional -prerelease and +build, e.g. 2.1.261 or "
        "1.0.0-rc.1\n"
        "  fix: write the host version the contract was recorded against\n"
        "1 problem(s); nothing was written.\n"
    ),
    "padded_floor": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:3:10: claude-code@2.1.261 field 'admission.floor': host version ' "
        "2.1.261' is padded with whitespace; write it without spaces\n"
        "  fix: write MAJOR.MINOR.PATCH, e.g. 2.1.261\n"
        "1 problem(s); nothing was written.\n"
    ),
    "garbage_floor": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:3:10: claude-code@2.1.261 field 'admission.floor': host version "
        "'latest' is not a semantic version; write MAJOR.MINOR.PATCH with an optional -prerelease and +build, e.g. "
        "2.1.261 or 1.0.0-rc.1\n"
        "  fix: write MAJOR.MINOR.PATCH, e.g. 2.1.261\n"
        "1 problem(s); nothing was written.\n"
    ),
    "empty_floor": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:3:10: claude-code@2.1.261 field 'admission.floor': host version "
        "is empty; write MAJOR.MINOR.PATCH, e.g. 2.1.261\n"
        "  fix: write MAJOR.MINOR.PATCH, e.g. 2.1.261\n"
        "1 problem(s); nothing was written.\n"
    ),
    "floor_prerelease": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:4:24: claude-code@2.1.261 field 'admission.include_prereleases': "
        "a floor never admits prereleases (a prerelease of a later release is not that release)\n"
        "  fix: remove include_prereleases, or use from/through\n"
        "1 problem(s); nothing was written.\n"
    ),
    "two_shapes": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:3:3: claude-code@2.1.261 field 'admission': admission needs "
        "exactly one of exact, floor, from+through (got: exact, floor)\n"
        "  fix: keep exactly one shape: 'exact: X', 'floor: X', or 'from: X' with 'through: Y'\n"
        "1 problem(s); nothing was written.\n"
    ),
    "range_inverted": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:4:12: claude-code@2.1.261 field 'admission.through': range from "
        "2.1.261 through 2.1.0 is empty: 'from' exceeds 'through'\n"
        "  fix: swap the bounds\n"
        "1 problem(s); nothing was written.\n"
    ),
    "range_pre_noflag": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:3:3: claude-code@2.1.261 field 'admission': a range bound is a "
        "prerelease but include_prereleases is false\n"
        "  fix: set include_prereleases: true, or use release bounds\n"
        "1 problem(s); nothing was written.\n"
    ),
    "id_mismatch": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:3:3: claude-code@2.1.261 field 'admission': admission starts at "
        "2.1.200 but the contract id records 2.1.261\n"
        "  fix: the contract id carries the lowest admitted version: make them equal\n"
        "1 problem(s); nothing was written.\n"
    ),
    "float_version": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:3:10: claude-code@2.1.261 field 'admission.exact': 2.1 must be a "
        "string (quote it)\n"
        "  fix: write a string here (quote it)\n"
        "1 problem(s); nothing was written.\n"
    ),
    "wrong_surface": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:25:14: claude-code@2.1.261 event Stop field 'surface': surface "
        "'codex-strict-command-json' is not a claude-code surface; allowed: claude-command-json\n"
        "  fix: use one of: claude-command-json\n"
        "profiles/claude-code@2.1.261/lifecycle.yaml:30:14: claude-code@2.1.261 event Stop field 'failure': failure "
        "mode 'exit-2-blocks' does not exist on surface 'codex-strict-command-json'; allowed: report-and-continue, "
        "strict-hook-failure, strict-output-exit-2-blocks\n"
        "  fix: use one of: report-and-continue, strict-hook-failure, strict-output-exit-2-blocks\n"
        "2 problem(s); nothing was written.\n"
    ),
    "wrong_arm": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:30:14: claude-code@2.1.261 event Stop field 'failure': failure "
        "mode 'throw-fail-fast' does not exist on surface 'claude-command-json'; allowed: report-and-continue, "
        "exit-2-blocks\n"
        "  fix: use one of: report-and-continue, exit-2-blocks\n"
        "1 problem(s); nothing was written.\n"
    ),
    "nonblocking_blocks": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:44:14: claude-code@2.1.261 event PostToolUse field 'failure': a "
        "nonblocking row declares the blocking failure mode 'exit-2-blocks'\n"
        "  fix: declare the surface's non-blocking arm, or correct 'blocking'\n"
        "1 problem(s); nothing was written.\n"
    ),
    "observation_mutates": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:41:15: claude-code@2.1.261 event PostToolUse field 'mutation': an "
        "observation row declares mutation 'output'; observation and explicit-human-response rows never mutate\n"
        "  fix: set 'mutation: none'\n"
        "1 problem(s); nothing was written.\n"
    ),
    "stoploop_not_stop": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:47:16: claude-code@2.1.261 event PostToolUse field 'stop_loop': "
        "consult-when-inactive applies only to Stop-family events (Stop, SubagentStop)\n"
        "  fix: set 'stop_loop: not-applicable'\n"
        "1 problem(s); nothing was written.\n"
    ),
    "dup_identity": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:18:34: claude-code@2.1.261 event PreToolUse field 'identities': "
        "duplicate identity field 'session_id'\n"
        "  fix: forward each native identity exactly once: remove the duplicate\n"
        "1 problem(s); nothing was written.\n"
    ),
    "unresolved_declared": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:19:18: claude-code@2.1.261 event PreToolUse field 'unresolved': "
        "identity kind 'session' is both declared and unresolved\n"
        "  fix: remove it from 'unresolved' or from 'identities'\n"
        "1 problem(s); nothing was written.\n"
    ),
    "evidence_padded": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:15:15: claude-code@2.1.261 event PreToolUse field 'evidence': "
        "citation ' https://docs.claude.com/en/docs/claude-code/hooks' has leading or trailing whitespace\n"
        "  fix: trim it to the exact URL or repository path\n"
        "1 problem(s); nothing was written.\n"
    ),
    "evidence_missing_path": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:15:15: claude-code@2.1.261 event PreToolUse field 'evidence': "
        "citation 'captures/nowhere.json' is neither a URL nor a path that exists in this repository\n"
        "  fix: commit the cited file, cite the host documentation URL, or leave the evidence empty\n"
        "1 problem(s); nothing was written.\n"
    ),
    "evidence_unknown_source": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:15:15: claude-code@2.1.261 event PreToolUse field 'evidence': "
        "citation '@hook' names no entry of 'sources' (known: hooks)\n"
        "  fix: add it under 'sources:' or correct the name\n"
        "1 problem(s); nothing was written.\n"
    ),
    "response_not_gate": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:37:15: claude-code@2.1.261 event Stop field 'response': "
        "response-channel evidence on a row that is not a pre-action gate-consultation\n"
        "  fix: remove 'response', or mark the row pre_action: true with semantic gate-consultation\n"
        "1 problem(s); nothing was written.\n"
    ),
    "ask_without_deny": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:22:21: claude-code@2.1.261 event PreToolUse field 'response.ask': "
        "an ask channel without a deny channel\n"
        "  fix: cite the deny channel too, or remove 'ask'\n"
        "1 problem(s); nothing was written.\n"
    ),
    "op_missing": (
        "profiles/claude-code@2.1.261/runtime.yaml:3:3: claude-code@2.1.261 field 'operations': core operations not "
        "bound: stop_assignment\n"
        "  fix: bind every core operation exactly once (native, parent-mediated, semantic-instruction or unsupported)\n"
        "1 problem(s); nothing was written.\n"
    ),
    "op_unknown": (
        "profiles/claude-code@2.1.261/runtime.yaml:8:3: claude-code@2.1.261 operation halt_assignment field "
        "'operations': 'halt_assignment' is not a member of operations; allowed: invoke_skill, delegate_assignment, "
        "continue_assignment, send_assignment_message, collect_assignment_results, stop_assignment, "
        "request_user_decision\n"
        "  fix: use one of: invoke_skill, delegate_assignment, continue_assignment, send_assignment_message, "
        "collect_assignment_results, stop_assignment, request_user_decision\n"
        "1 problem(s); nothing was written.\n"
    ),
    "op_wrong_fields": (
        "profiles/claude-code@2.1.261/runtime.yaml:9:47: claude-code@2.1.261 operation request_user_decision field "
        "'call': 'call' does not belong to an unsupported binding (its fields: reason)\n"
        "  fix: remove 'call' or change 'class'\n"
        "1 problem(s); nothing was written.\n"
    ),
    "op_team_create": (
        "profiles/claude-code@2.1.261/runtime.yaml:4:46: claude-code@2.1.261 operation delegate_assignment field "
        "'call': native call 'TeamCreate' is not a documented claude-code tool; allowed: Agent, AskUserQuestion, "
        "SendMessage, Skill, TaskOutput, TaskStop\n"
        "  fix: bind one of the allowed tools, or lower the operation as parent-mediated, semantic-instruction or "
        "unsupported\n"
        "1 problem(s); nothing was written.\n"
    ),
    "op_native_nocall": (
        "profiles/claude-code@2.1.261/runtime.yaml:3:17: claude-code@2.1.261 operation invoke_skill field 'call': a "
        "native binding needs a non-empty 'call'\n"
        "  fix: add 'call:'\n"
        "1 problem(s); nothing was written.\n"
    ),
    "runtime_contract_mismatch": (
        "profiles/claude-code@2.1.261/runtime.yaml:1:11: claude-code@2.1.261 field 'contract': runtime profile names "
        "'claude-code@2.1.260' but its lifecycle profile is 'claude-code@2.1.261'\n"
        "  fix: write 'contract: claude-code@2.1.261'\n"
        "1 problem(s); nothing was written.\n"
    ),
    "cap_missing": (
        "profiles/claude-code@2.1.261/runtime.yaml:11:10: claude-code@2.1.261 capability review field 'id': requested "
        "capability 'review' has no contribution\n"
        "  fix: contribute exactly one binding for it under 'capabilities'\n"
        "1 problem(s); nothing was written.\n"
    ),
    "cap_out_of_range": (
        "profiles/claude-code@2.1.261/runtime.yaml:13:28: claude-code@2.1.261 capability review field 'supports': "
        "requested version 1.2.0 is outside the contributed range from 1.0.0 through 1.1.9\n"
        "  fix: widen the range or contribute a binding for the requested version\n"
        "1 problem(s); nothing was written.\n"
    ),
    "cap_duplicate": (
        "profiles/claude-code@2.1.261/runtime.yaml:14:10: claude-code@2.1.261 capability review field 'id': duplicate "
        "contribution for capability 'review' (first at entry 1)\n"
        "  fix: contribute each capability exactly once\n"
        "1 problem(s); nothing was written.\n"
    ),
    "cap_conflict": (
        "profiles/claude-code@2.1.261/runtime.yaml:14:10: claude-code@2.1.261 capability review field 'id': "
        "conflicting contribution for capability 'review' (first at entry 1)\n"
        "  fix: contribute each capability exactly once\n"
        "1 problem(s); nothing was written.\n"
    ),
    "cap_unrequested": (
        "profiles/claude-code@2.1.261/runtime.yaml:11:10: claude-code@2.1.261 capability review field 'id': capability "
        "'review' is contributed but not requested\n"
        "  fix: add it to 'requested_capabilities' or remove the contribution\n"
        "1 problem(s); nothing was written.\n"
    ),
    "yaml_syntax": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:24:4: claude-code@2.1.261: YAML syntax error: expected <block "
        "end>, but found '<block mapping start>'\n"
        "  fix: fix the YAML syntax at this position\n"
        "1 problem(s); nothing was written.\n"
    ),
    "empty_events": (
        "profiles/claude-code@2.1.261/lifecycle.yaml:6:9: claude-code@2.1.261 field 'events': the event catalog is "
        "empty\n"
        "  fix: list every native event the host contract declares\n"
        "1 problem(s); nothing was written.\n"
    ),
}


def test_every_case_has_an_expectation():
    assert set(CASES) == set(EXPECTED)


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_profile_is_refused_with_exact_diagnostic(case, tmp_path, cli):
    lifecycle, runtime = CASES[case]
    assert (lifecycle, runtime) != (L, R), "the case must change the fixture"
    write_project(tmp_path, lifecycle, runtime)
    result = cli("--root", str(tmp_path), "validate")
    assert result.exit_code == 2
    assert result.stderr == EXPECTED[case]
    assert result.stdout == ""


def test_fixture_itself_is_valid(tmp_path, cli):
    write_project(tmp_path)
    result = cli("--root", str(tmp_path), "validate")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == (
        "claude-code@2.1.261: 3 events, 1 blocking; admits at or above 2.1.261\n1 contract(s) valid.\n"
    )


def test_every_problem_is_reported_not_only_the_first(tmp_path, cli):
    lifecycle = L.replace("semantic: observation", "semantic: watching").replace("floor: 2.1.261", "floor: nope")
    runtime = R.replace("call: Agent", "call: TeamDelete")
    write_project(tmp_path, lifecycle, runtime)
    result = cli("--root", str(tmp_path), "validate")
    assert result.exit_code == 2
    assert result.stderr.count("\n  fix: ") == 2  # shape errors stop the lifecycle file; runtime still checked
    assert "'watching' is not a member of semantic" in result.stderr
    assert "native call 'TeamDelete' is not a documented claude-code tool" in result.stderr


def test_duplicate_effect_is_refused(tmp_path, cli):
    runtime = R + (
        "effects:\n"
        "  - {id: git.push, class: unsupported, reason: not here}\n"
        "  - {id: git.push, class: unsupported, reason: not here}\n"
    )
    write_project(tmp_path, L, runtime)
    result = cli("--root", str(tmp_path), "validate")
    assert result.exit_code == 2
    assert result.stderr == (
        "profiles/claude-code@2.1.261/runtime.yaml:12:10: claude-code@2.1.261 effect git.push field 'id': "
        "duplicate effect 'git.push'\n  fix: bind each effect once\n1 problem(s); nothing was written.\n"
    )


OPENCODE_LIFECYCLE = """\
contract: opencode@1.18.29
admission: {floor: 1.18.29}
events:
  - name: tool.execute.before
    semantic: gate-consultation
    surface: opencode-named-output
    blocking: blocking
    mutation: output-object
    order: sequential-load-order
    reconciliation: sequential-mutation
    failure: report-and-continue
    identities: [{kind: session, field: sessionID, required: true}]
    stop_loop: not-applicable
    pre_action: true
"""


def test_opencode_stop_assignment_must_be_unsupported(tmp_path, cli):
    runtime = (
        R.replace("contract: claude-code@2.1.261", "contract: opencode@1.18.29")
        .replace("call: Skill", "call: skill")
        .replace("call: Agent", "call: task")
        .replace(
            "{class: native, call: SendMessage, arguments: [to, message], result: ack, context: kept}",
            "{class: semantic-instruction, instruction: continue it}",
        )
    )
    write_project(tmp_path, OPENCODE_LIFECYCLE, runtime, contract="opencode@1.18.29")
    result = cli("--root", str(tmp_path), "validate")
    assert result.exit_code == 2
    assert result.stderr == (
        "profiles/opencode@1.18.29/runtime.yaml:8:28: opencode@1.18.29 operation stop_assignment field 'class': "
        "OpenCode documents no tool that stops a running assignment; stop_assignment must be unsupported there\n"
        "  fix: set 'class: unsupported' with a reason\n"
        "profiles/opencode@1.18.29/runtime.yaml:8:42: opencode@1.18.29 operation stop_assignment field 'call': "
        "native call 'TaskStop' is not a documented opencode tool; allowed: question, skill, task\n"
        "  fix: bind one of the allowed tools, or lower the operation as parent-mediated, semantic-instruction or "
        "unsupported\n"
        "2 problem(s); nothing was written.\n"
    )
