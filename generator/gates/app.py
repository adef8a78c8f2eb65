"""``PastureApp``: the ``app`` object HarnessWrapper and AIGateWrapper call.

It composes the two real backends behind the original SDK's method names:
``app.ai(...)`` → :class:`~generator.gates.openai_chat.OpenAIChatClient`,
``app.harness(...)`` → :class:`~generator.gates.harness.HostHarnessBackend`.
"""

from __future__ import annotations

from typing import Any

from generator.gates.errors import AIIntegrationError
from generator.gates.harness import HostHarnessBackend
from generator.gates.openai_chat import OpenAIChatClient


class PastureApp:
    def __init__(self, *, ai: Any = None, harness: Any = None) -> None:
        self.ai_backend = ai
        self.harness_backend = harness

    @classmethod
    def from_config(cls, config: Any, **harness_kwargs: Any) -> "PastureApp":
        """Both backends from one config (``ai_base_url``/``ai_api_key``, ``opencode_bin``)."""
        return cls(
            ai=OpenAIChatClient.from_config(config),
            harness=HostHarnessBackend.from_config(config, **harness_kwargs),
        )

    async def ai(self, *, system: str | None = None, user: str, schema: Any, model: str) -> Any:
        if self.ai_backend is None:
            raise AIIntegrationError("PastureApp has no ai backend")
        return await self.ai_backend.ai(system=system, user=user, schema=schema, model=model)

    async def harness(self, prompt: str, **kwargs: Any) -> Any:
        if self.harness_backend is None:
            raise AIIntegrationError("PastureApp has no harness backend")
        return await self.harness_backend.harness(prompt, **kwargs)
