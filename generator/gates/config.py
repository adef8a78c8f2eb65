"""``AIIntegrationConfig``: the pydantic settings model of the AI integration.

Importing this module imports pydantic; the hook path uses :class:`~generator.gates._env.EnvAIConfig`
instead, which reads the same environment table.

Fields, defaults and environment fallbacks (first *set* variable wins, even if empty):

=========================  ==============================================  =========================
field                      environment                                     default
=========================  ==============================================  =========================
provider                   SEC_AF_PROVIDER, HARNESS_PROVIDER               "aforge"
harness_model              SEC_AF_MODEL, HARNESS_MODEL                     "minimax/minimax-m2.5"
ai_model                   SEC_AF_AI_MODEL, AI_MODEL, SEC_AF_MODEL         "minimax/minimax-m2.5"
max_turns                  SEC_AF_MAX_TURNS                                50
max_retries                SEC_AF_AI_MAX_RETRIES                           3 (so 4 attempts)
initial_backoff_seconds    SEC_AF_AI_INITIAL_BACKOFF_SECONDS               2.0
max_backoff_seconds        SEC_AF_AI_MAX_BACKOFF_SECONDS                   8.0
opencode_bin               SEC_AF_OPENCODE_BIN                             "opencode"
aforge_bin                 SEC_AF_AFORGE_BIN, AFORGE_BIN                   "aforge"
opencode_server            SEC_AF_OPENCODE_SERVER, OPENCODE_SERVER         None
ai_base_url (pasture)      PASTURE_AI_BASE_URL, OPENAI_BASE_URL            "https://openrouter.ai/api/v1"
ai_api_key (pasture)       PASTURE_AI_API_KEY, OPENROUTER_API_KEY,         None (empty counts as None)
                           OPENAI_API_KEY
=========================  ==============================================  =========================

The last two fields are pasture's additions: the original delegated the endpoint to its SDK.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from generator.gates import _env


class AIIntegrationConfig(BaseModel):
    provider: str = Field(default_factory=_env.ENV_FACTORIES["provider"])
    harness_model: str = Field(default_factory=_env.ENV_FACTORIES["harness_model"])
    ai_model: str = Field(default_factory=_env.ENV_FACTORIES["ai_model"])
    max_turns: int = Field(default_factory=_env.ENV_FACTORIES["max_turns"])
    max_retries: int = Field(default_factory=_env.ENV_FACTORIES["max_retries"])
    initial_backoff_seconds: float = Field(default_factory=_env.ENV_FACTORIES["initial_backoff_seconds"])
    max_backoff_seconds: float = Field(default_factory=_env.ENV_FACTORIES["max_backoff_seconds"])
    opencode_bin: str = Field(default_factory=_env.ENV_FACTORIES["opencode_bin"])
    aforge_bin: str = Field(default_factory=_env.ENV_FACTORIES["aforge_bin"])
    opencode_server: str | None = Field(default_factory=_env.ENV_FACTORIES["opencode_server"])
    ai_base_url: str = Field(default_factory=_env.ENV_FACTORIES["ai_base_url"])
    ai_api_key: str | None = Field(default_factory=_env.ENV_FACTORIES["ai_api_key"], repr=False)

    @classmethod
    def from_env(cls) -> "AIIntegrationConfig":
        return cls()

    def provider_env(self) -> dict[str, str]:
        """Credentials and data-dir settings forwarded to a harness process (see ``_env.provider_env``)."""
        return _env.provider_env()
