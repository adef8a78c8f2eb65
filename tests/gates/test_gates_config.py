"""EnvAIConfig (the seed's AIIntegrationConfig, without pydantic): fields, defaults, environment
fallbacks, provider_env()."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import tempfile

import pytest

from pasture.gates import EnvAIConfig
from pasture.gates._env import ENV_FALLBACKS, PROVIDER_ENV_KEYS

ALL_VARS = sorted({v for names, _ in ENV_FALLBACKS.values() for v in names} | set(PROVIDER_ENV_KEYS)) + [
    "AGENTFIELD_AFORGE_COMMAND",
    "XDG_DATA_HOME",
]

DEFAULTS = {
    "provider": "aforge",
    "harness_model": "minimax/minimax-m2.5",
    "ai_model": "minimax/minimax-m2.5",
    "max_turns": 50,
    "max_retries": 3,
    "initial_backoff_seconds": 2.0,
    "max_backoff_seconds": 8.0,
    "harness_server": None,
    "ai_base_url": "https://openrouter.ai/api/v1",
    "ai_api_key": None,
}


@pytest.fixture
def env(monkeypatch):
    for var in ALL_VARS:
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def test_field_order_and_defaults(env):
    config = EnvAIConfig()
    assert [f.name for f in dataclasses.fields(EnvAIConfig)] == list(DEFAULTS)
    assert vars(config) == DEFAULTS
    assert EnvAIConfig.from_env() == config


@pytest.mark.parametrize(
    ("field", "env_vars", "value", "typed"),
    [
        ("provider", ["SEC_AF_PROVIDER", "HARNESS_PROVIDER"], "opencode", "opencode"),
        ("harness_model", ["SEC_AF_MODEL", "HARNESS_MODEL"], "m/h", "m/h"),
        ("ai_model", ["SEC_AF_AI_MODEL", "AI_MODEL", "SEC_AF_MODEL"], "m/a", "m/a"),
        ("max_turns", ["SEC_AF_MAX_TURNS"], "7", 7),
        ("max_retries", ["SEC_AF_AI_MAX_RETRIES"], "0", 0),
        ("initial_backoff_seconds", ["SEC_AF_AI_INITIAL_BACKOFF_SECONDS"], "0.5", 0.5),
        ("max_backoff_seconds", ["SEC_AF_AI_MAX_BACKOFF_SECONDS"], "30", 30.0),
        (
            "harness_server",
            ["PASTURE_HARNESS_SERVER"],
            "http://127.0.0.1:4096",
            "http://127.0.0.1:4096",
        ),
        ("ai_base_url", ["PASTURE_AI_BASE_URL", "OPENAI_BASE_URL"], "http://127.0.0.1:1/v1", "http://127.0.0.1:1/v1"),
        ("ai_api_key", ["PASTURE_AI_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY"], "sk-x", "sk-x"),
    ],
)
def test_each_variable_is_read_and_earlier_ones_win(env, field, env_vars, value, typed):
    assert ENV_FALLBACKS[field][0] == tuple(env_vars)
    # each variable alone is read
    for var in env_vars:
        env.setenv(var, value)
        assert getattr(EnvAIConfig(), field) == typed
        env.delenv(var)
    # the first variable beats the later ones
    if len(env_vars) > 1:
        for later in env_vars[1:]:
            env.setenv(later, "later-value-9")
        env.setenv(env_vars[0], value)
        assert getattr(EnvAIConfig(), field) == typed


def test_a_set_but_empty_variable_still_wins(env):
    env.setenv("SEC_AF_PROVIDER", "")
    env.setenv("HARNESS_PROVIDER", "codex")
    assert EnvAIConfig().provider == ""
    env.setenv("SEC_AF_AI_MODEL", "")
    env.setenv("AI_MODEL", "x")
    assert EnvAIConfig().ai_model == ""


def test_ai_model_falls_back_to_sec_af_model(env):
    env.setenv("SEC_AF_MODEL", "shared/model")
    config = EnvAIConfig()
    assert config.ai_model == "shared/model" and config.harness_model == "shared/model"
    env.setenv("AI_MODEL", "gate/model")
    assert EnvAIConfig().ai_model == "gate/model"


def test_empty_api_key_is_no_key(env):
    env.setenv("PASTURE_AI_API_KEY", "")
    assert EnvAIConfig().ai_api_key is None


def test_api_key_stays_out_of_repr(env):
    env.setenv("PASTURE_AI_API_KEY", "sk-secret")
    assert "sk-secret" not in repr(EnvAIConfig())


def test_garbage_numbers_raise(env):
    env.setenv("SEC_AF_MAX_TURNS", "many")
    with pytest.raises(ValueError):
        EnvAIConfig()


def test_explicit_values_beat_the_environment(env):
    env.setenv("SEC_AF_AI_MAX_RETRIES", "9")
    assert EnvAIConfig(max_retries=1).max_retries == 1


def test_provider_env_forwards_set_credentials_only(env, tmp_path):
    env.setenv("OPENROUTER_API_KEY", "or-key")
    env.setenv("GH_TOKEN", "gh")
    env.setenv("OPENAI_API_KEY", "")  # set but empty: not forwarded
    env.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert EnvAIConfig().provider_env() == {
        "OPENROUTER_API_KEY": "or-key",
        "GH_TOKEN": "gh",
        "AGENTFIELD_AFORGE_COMMAND": "exec",
        "XDG_DATA_HOME": str(tmp_path / "xdg"),
    }
    assert (tmp_path / "xdg").is_dir()


def test_provider_env_defaults(env, tmp_path):
    env.setenv("TMPDIR", str(tmp_path))
    tempfile.tempdir = None  # re-read TMPDIR
    try:
        env.setenv("AGENTFIELD_AFORGE_COMMAND", "do")
        result = EnvAIConfig().provider_env()
    finally:
        tempfile.tempdir = None
    assert result == {"AGENTFIELD_AFORGE_COMMAND": "do", "XDG_DATA_HOME": str(tmp_path / "pasture-harness-data")}
    assert (tmp_path / "pasture-harness-data").is_dir()


def test_provider_env_empty_xdg_uses_the_default(env, tmp_path):
    env.setenv("XDG_DATA_HOME", "")
    env.setenv("TMPDIR", str(tmp_path))
    tempfile.tempdir = None
    try:
        shared = os.path.join(str(tmp_path), "pasture-harness-data")
        assert EnvAIConfig().provider_env()["XDG_DATA_HOME"] == shared
    finally:
        tempfile.tempdir = None


def test_hook_path_imports_no_pydantic():
    code = (
        "import sys\n"
        "from pasture.gates import ai_gate_decide, is_transient_error, with_phase_guidance\n"
        "from pasture.gates.gate import GateDecision\n"
        "import pasture.gates.harness, pasture.gates.agent, pasture.gates.openai_chat\n"
        "from pasture.gates._env import EnvAIConfig\n"
        "EnvAIConfig()\n"
        "bad = sorted(m for m in sys.modules\n"
        "             if m.split('.')[0] in {'pydantic', 'pydantic_core', 'yaml', 'jinja2', 'click'})\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
