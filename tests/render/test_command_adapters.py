"""Claude Code and Codex adapters: exact bytes, the hosts' own JSON Schemas, and the event-key guard."""

from __future__ import annotations

import copy
import json

import host_schemas
import jsonschema
import pytest
from loading import load_project
from repo_paths import REPO

from pasture.hosts.claude_code import claude_artifacts
from pasture.hosts.codex import ACCEPTED_EVENTS, CodexEventError, codex_artifacts


@pytest.fixture(scope="module")
def contracts():
    return {c.id: c for c in load_project(REPO)}


from profiles_found import contract_ids  # noqa: E402  (every contract in profiles/: no list to edit)


@pytest.mark.parametrize("contract_id", contract_ids("claude-code"))
@pytest.mark.parametrize("index", [0, 1, 2])
def test_claude_adapter_bytes(contracts, contract_id, index, golden):
    artifact = claude_artifacts(contracts[contract_id])[index]
    assert artifact.text == golden(artifact.path)


@pytest.mark.parametrize("contract_id", contract_ids("codex"))
def test_codex_adapter_bytes(contracts, contract_id, golden):
    (artifact,) = codex_artifacts(contracts[contract_id])
    assert artifact.text == golden(artifact.path)


def claude_settings_schema() -> dict:
    """SchemaStore's Claude settings schema, extended knowingly for PreModelSwitch/PostModelSwitch.

    The published schema predates Claude Code 2.1.251, which added those two events, and its
    `hooks` object forbids unknown keys. We add exactly those two, with the same matcher-group shape
    every other event uses, and assert nothing else had to change.
    """
    schema = host_schemas.load("claude-code-settings.schema.json")
    hooks = schema["properties"]["hooks"]
    assert hooks["additionalProperties"] is False
    template = copy.deepcopy(hooks["properties"]["PreToolUse"])
    for event in ("PreModelSwitch", "PostModelSwitch"):
        assert event not in hooks["properties"]
        hooks["properties"][event] = copy.deepcopy(template)
    return schema


def test_claude_settings_fragment_validates_against_the_settings_schema(contracts):
    schema = claude_settings_schema()
    settings = json.loads(claude_artifacts(contracts["claude-code@2.1.261"])[0].text)
    jsonschema.validate(settings, schema)
    assert len(settings["hooks"]) == 33


def test_claude_plugin_hooks_validate(contracts):
    schema = claude_settings_schema()
    _, plugin, hooks = claude_artifacts(contracts["claude-code@2.1.261"])
    document = json.loads(hooks.text)
    # A plugin hooks.json is the settings `hooks` object plus an optional description.
    jsonschema.validate({"hooks": document["hooks"]}, schema)
    assert set(document) == {"description", "hooks"}
    assert json.loads(plugin.text)["name"] == "pasture-lifecycle"


def test_unpatched_schema_rejects_only_the_two_newer_events(contracts):
    schema = host_schemas.load("claude-code-settings.schema.json")
    settings = json.loads(claude_artifacts(contracts["claude-code@2.1.261"])[0].text)
    errors = list(jsonschema.Draft7Validator(schema).iter_errors(settings))
    assert len(errors) == 1
    assert "'PostModelSwitch', 'PreModelSwitch' were unexpected" in errors[0].message


def test_codex_hooks_validate_against_codex_config_schema(contracts):
    config = host_schemas.load("codex-config.schema.json")
    document = json.loads(codex_artifacts(contracts["codex@0.153.0"])[0].text)
    hooks_toml = config["definitions"]["HooksToml"]
    # The schema's HooksToml (0.148-era) lacks Interrupt; everything else must validate strictly.
    strict = {
        "$schema": config.get("$schema"),
        "definitions": config["definitions"],
        **{k: v for k, v in hooks_toml.items() if k != "properties"},
        "properties": {k: v for k, v in hooks_toml["properties"].items() if k != "state"},
        "additionalProperties": False,
    }
    events = {k: v for k, v in document["hooks"].items() if k != "Interrupt"}
    jsonschema.validate(events, strict)
    assert set(document["hooks"]) <= ACCEPTED_EVENTS
    assert set(document["hooks"]) - set(hooks_toml["properties"]) == {"Interrupt"}
    assert set(document) == {"description", "hooks"}  # HooksFile denies unknown top-level keys


def test_codex_guard_refuses_a_key_codex_would_ignore(contracts):
    import dataclasses

    codex = contracts["codex@0.153.0"]
    typo = dataclasses.replace(codex.events[2], name="preToolUse")
    broken = dataclasses.replace(codex, events=(typo,) + codex.events[3:], _index={})
    with pytest.raises(CodexEventError, match="Codex would silently ignore these event keys: preToolUse"):
        codex_artifacts(broken)


def test_every_command_is_short_and_overridable(contracts):
    artifacts = claude_artifacts(contracts["claude-code@2.1.261"])[:1] + codex_artifacts(contracts["codex@0.153.0"])
    for artifact in artifacts:
        for event, groups in json.loads(artifact.text)["hooks"].items():
            (hook,) = groups[0]["hooks"]
            assert hook["command"].startswith("${PASTURE_BIN:-pasture} hook lifecycle --harness ")
            assert f"--event {event} --host-version " in hook["command"]
            # Claude shows the whole line to the model when a hook blocks: the runtime call stays
            # short, and the fail-closed tail of blocking rows (pasture.render.commands) is bounded.
            call, _, tail = hook["command"].partition(" || ")
            assert len(call) < 120
            assert len(tail) < 420
            assert 1 <= hook["timeout"] <= 600


def test_claude_2_1_328_settings_validate_with_on_failure_known(contracts):
    """SchemaStore's schema predates onFailure (2.1.295) and forbids unknown handler keys. The real
    Claude Code 2.1.328 accepts `"onFailure": "block"` on command hooks and blocks with it
    (tests/install/test_claude_onfailure_real.py); its own settings schema has onFailure on command
    handlers. We add exactly that key to the command handler shape and nothing else."""
    schema = claude_settings_schema()
    settings = json.loads(claude_artifacts(contracts["claude-code@2.1.328"])[0].text)
    unpatched = list(jsonschema.Draft7Validator(schema).iter_errors(settings))
    assert unpatched and all("onFailure" in e.message or "onFailure" in json.dumps(e.instance) for e in unpatched)
    command = next(
        shape
        for shape in schema["$defs"]["hookCommand"]["anyOf"]
        if shape.get("properties", {}).get("type", {}).get("const") == "command"
    )
    assert command["additionalProperties"] is False and "onFailure" not in command["properties"]
    command["properties"]["onFailure"] = {"type": "string", "enum": ["continue", "block"]}
    jsonschema.validate(settings, schema)
    blocking = [e for e, groups in settings["hooks"].items() if groups[0]["hooks"][0].get("onFailure") == "block"]
    # exactly the gates that block on evidence (Stop-like rows never), as the profile says
    from pasture.hosts.claude_code import on_failure_block

    contract = contracts["claude-code@2.1.328"]
    assert blocking == [r.name for r in contract.events if on_failure_block(contract, r)]
    assert "PreToolUse" in blocking and "Stop" not in blocking


def test_every_claude_hook_is_named_by_its_status_message_not_its_command_line(contracts):
    """Claude Code quotes the hook's command in front of a Stop or PostToolUse block it hands the model
    (`Stop hook blocking error from command: "<command>": <reason>`, captures/claude-code@2.1.332/
    stop-block-continue): ~590 bytes of our shell line before an [[until]] continuation. Its binary names
    the hook by `statusMessage` there when one is set (so do 2.1.261 and 2.1.328), so every handler of
    every Claude contract carries one: a plain label, no command line."""
    shape = _command_shape_with_on_failure()  # each handler is the host schema's command hook
    for contract in ("claude-code@2.1.261", "claude-code@2.1.328", "claude-code@2.1.332"):
        settings = json.loads(claude_artifacts(contracts[contract])[0].text)
        handlers = [h for groups in settings["hooks"].values() for group in groups for h in group["hooks"]]
        assert handlers and {h.get("statusMessage") for h in handlers} == {"pasture guard"}, contract
        for handler in handlers:
            jsonschema.validate(handler, shape)


def _command_shape_with_on_failure() -> dict:
    schema = claude_settings_schema()
    command = next(
        shape
        for shape in schema["$defs"]["hookCommand"]["anyOf"]
        if shape.get("properties", {}).get("type", {}).get("const") == "command"
    )
    assert "statusMessage" in command["properties"]  # the host's own schema has it
    command["properties"]["onFailure"] = {"type": "string", "enum": ["continue", "block"]}
    return command
