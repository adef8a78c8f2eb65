"""What the runtime knows per host comes from each host's wire (hostwire/<wire>.py, issue 30): the guard's
screen words, the tool kinds, the agent-gate judges; the hook reads them through the registry or the compiled
policy, never by naming a host."""

from __future__ import annotations

import importlib

from pasture.runtime import builtin, envelope, gatekinds
from pasture.runtime.effective import load
from pasture.runtime.hostwire import WIRES


def _wire(harness: str):
    return importlib.import_module(f"pasture.runtime.hostwire.{WIRES[harness]}")


def test_the_screen_reads_on_for_every_hosts_folder_name():
    for harness in WIRES:
        for word in _wire(harness).SCREEN_WORDS:
            command = f"cp a b/{word}"
            assert not builtin.screen(command, (), (), ()), command  # nothing else in it is a guard word
            assert builtin.screen(command, (), (), builtin.screen_words()), command
            assert builtin.screen(command, (), ()), command  # no words given: read from the wires


def test_the_compiled_policy_carries_the_screen_words(env, tmp_path):
    root = tmp_path / "project"
    (root / ".pasture").mkdir(parents=True)
    effective = load(str(root), env)
    assert effective.screen_words == builtin.screen_words()
    again = load(str(root), env)  # the same words from the cache
    assert again.screen_words == builtin.screen_words()


def test_a_tool_kind_is_the_hosts_own():
    assert envelope._kind("opencode", "bash") == envelope._kind("claude-code", "Bash") == "shell"
    assert envelope._kind("gemini-cli", "run_shell_command") == "shell"
    # a name in another host's table only: this host sends no such tool, it arrives as its name
    assert envelope._kind("pi", "run_shell_command") == "run_shell_command"
    assert envelope._kind("pi", "") is None


def test_agent_judges_are_the_wires_that_say_so():
    judges = tuple(h for h in WIRES if getattr(_wire(h), "AGENT_JUDGE", False))
    assert gatekinds.AGENT_HOSTS == gatekinds.agent_hosts() == judges
    assert judges  # not vacuous


def test_what_every_event_reads_is_what_the_wires_declare():
    """The registry's copies (hostwire/__init__.py) of what the hook reads whatever its harness."""
    from pasture.runtime import hostwire

    wires = [_wire(h) for h in WIRES]
    assert set(hostwire.USER_DIR_VARIABLES) == {w.USER_DIR[0] for w in wires if w.USER_DIR[0]}
    assert set(hostwire.PROJECT_DIR_VARIABLES) == {
        w.PROJECT_DIR_VARIABLE for w in wires if getattr(w, "PROJECT_DIR_VARIABLE", None)
    }
    assert set(hostwire.ENV_BLOCK_FILES) == {f for w in wires for f in getattr(w, "ENV_BLOCK_FILES", ())}
    assert set(hostwire.ENV_PREFIXES) == {w.ENV_PREFIX for w in wires if getattr(w, "ENV_PREFIX", None)}
    for copy in ("USER_DIR_VARIABLES", "PROJECT_DIR_VARIABLES", "ENV_BLOCK_FILES", "ENV_PREFIXES"):
        assert getattr(hostwire, copy), copy  # not vacuous


def test_the_env_screen_finds_every_declared_settings_file(tmp_path):
    from pasture.runtime import hostwire, layers

    project = tmp_path / "project" / "src"
    project.mkdir(parents=True)
    for rel in hostwire.ENV_BLOCK_FILES:
        (tmp_path / "project" / rel).parent.mkdir(parents=True, exist_ok=True)
    found = layers.project_host_settings((str(project),))
    assert found == [str(tmp_path / "project" / rel) for rel in hostwire.ENV_BLOCK_FILES]
