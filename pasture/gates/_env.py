"""Environment fallbacks of the AI integration settings, stdlib only.

:class:`EnvAIConfig` (the seed's ``AIIntegrationConfig`` fields, without pydantic) reads the
environment through this one table. The ``ai`` gate reads ai_model, ai_base_url, ai_api_key and the
retry settings; HarnessWrapper, given no config, reads provider, harness_model, max_turns,
harness_server and provider_env() (the agent gate gives it its own: host and model from the policy).
The seed's ``opencode_bin`` and ``aforge_bin`` are not kept: nothing would read them. The
original's ``opencode_server`` is ``harness_server`` here: a running host server the judge attaches to, for a
judge whose host can attach (pasture.runtime.hostwire names which); the gates are host-neutral.

Lookup rule (the original's nested ``os.getenv(a, os.getenv(b, default))``): the first variable
that is *set* wins, even when it is set to the empty string; only unset variables fall through.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable

# field -> (environment variables, first set wins; default as the string the original parses)
ENV_FALLBACKS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "provider": (("SEC_AF_PROVIDER", "HARNESS_PROVIDER"), "aforge"),
    "harness_model": (("SEC_AF_MODEL", "HARNESS_MODEL"), "minimax/minimax-m2.5"),
    "ai_model": (("SEC_AF_AI_MODEL", "AI_MODEL", "SEC_AF_MODEL"), "minimax/minimax-m2.5"),
    "max_turns": (("SEC_AF_MAX_TURNS",), "50"),
    "max_retries": (("SEC_AF_AI_MAX_RETRIES",), "3"),
    "initial_backoff_seconds": (("SEC_AF_AI_INITIAL_BACKOFF_SECONDS",), "2.0"),
    "max_backoff_seconds": (("SEC_AF_AI_MAX_BACKOFF_SECONDS",), "8.0"),
    "harness_server": (("PASTURE_HARNESS_SERVER",), None),
    # pasture extensions (not in the original): where the `ai` backend sends its requests.
    "ai_base_url": (("PASTURE_AI_BASE_URL", "OPENAI_BASE_URL"), "https://openrouter.ai/api/v1"),
    "ai_api_key": (("PASTURE_AI_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY"), None),
}

# The credentials provider_env() forwards to a harness process when they are set and non-empty.
PROVIDER_ENV_KEYS: tuple[str, ...] = (
    "OPENROUTER_API_KEY",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GOOGLE_API_KEY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
)


def env_raw(name: str) -> str | None:
    """The raw string for one field: first set variable, else the default."""
    names, default = ENV_FALLBACKS[name]
    for var in names:
        value = os.environ.get(var)
        if value is not None:
            return value
    return default


def _api_key() -> str | None:
    # An empty key is no key: sending "Authorization: Bearer " helps nobody.
    return env_raw("ai_api_key") or None


# field -> factory producing the typed value, exactly as the original parses it
# (int()/float() raise ValueError on garbage, as the original's default factories do).
ENV_FACTORIES: dict[str, Callable[[], Any]] = {
    "provider": lambda: env_raw("provider"),
    "harness_model": lambda: env_raw("harness_model"),
    "ai_model": lambda: env_raw("ai_model"),
    "max_turns": lambda: int(env_raw("max_turns")),  # type: ignore[arg-type]
    "max_retries": lambda: int(env_raw("max_retries")),  # type: ignore[arg-type]
    "initial_backoff_seconds": lambda: float(env_raw("initial_backoff_seconds")),  # type: ignore[arg-type]
    "max_backoff_seconds": lambda: float(env_raw("max_backoff_seconds")),  # type: ignore[arg-type]
    "harness_server": lambda: env_raw("harness_server"),
    "ai_base_url": lambda: env_raw("ai_base_url"),
    "ai_api_key": _api_key,
}


def provider_env() -> dict[str, str]:
    """The environment a harness process gets on top of its inherited one.

        Set, non-empty credentials from :data:`PROVIDER_ENV_KEYS`; ``AGENTFIELD_AFORGE_COMMAND``
        (default ``exec``); ``XDG_DATA_HOME`` (default ``<tmp>/pasture-harness-data``, created: one data
    folder every judge host shares, as the seed's shared folder was).
    """
    env: dict[str, str] = {key: value for key in PROVIDER_ENV_KEYS if (value := os.getenv(key))}
    env["AGENTFIELD_AFORGE_COMMAND"] = os.getenv("AGENTFIELD_AFORGE_COMMAND", "exec")
    xdg = os.getenv("XDG_DATA_HOME") or os.path.join(tempfile.gettempdir(), "pasture-harness-data")
    os.makedirs(xdg, exist_ok=True)
    env["XDG_DATA_HOME"] = xdg
    return env


def _factory(name: str) -> Any:
    return field(default_factory=ENV_FACTORIES[name])


@dataclass(frozen=True)
class EnvAIConfig:
    """The seed's ``AIIntegrationConfig`` settings, without pydantic, for the hook path.

    The seed's field names, environment fallbacks and ``provider_env()``; no validation
    beyond the int()/float() parsing the original does.
    """

    provider: str = _factory("provider")
    harness_model: str = _factory("harness_model")
    ai_model: str = _factory("ai_model")
    max_turns: int = _factory("max_turns")
    max_retries: int = _factory("max_retries")
    initial_backoff_seconds: float = _factory("initial_backoff_seconds")
    max_backoff_seconds: float = _factory("max_backoff_seconds")
    harness_server: str | None = _factory("harness_server")
    ai_base_url: str = _factory("ai_base_url")
    ai_api_key: str | None = field(default_factory=ENV_FACTORIES["ai_api_key"], repr=False)

    @classmethod
    def from_env(cls) -> "EnvAIConfig":
        return cls()

    def provider_env(self) -> dict[str, str]:
        return provider_env()
