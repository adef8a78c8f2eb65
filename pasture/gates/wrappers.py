"""``HarnessWrapper`` and ``AIGateWrapper``: the seed's two wrappers, each behind one gate kind.

``HarnessWrapper`` is the ``agent`` kind's engine (pasture.gates.agent), ``AIGateWrapper`` the ``ai``
kind's (pasture.gates.gate). The seed's security-analysis entry points (``run_recon_analysis``,
``run_hunt_analysis``, ``run_prove_analysis``, ``invoke_batch``, ``build_ai_integration``) and its
pydantic config model are not ported: no gate kind or command would reach them. The phase guidance
they selected stays in pasture.gates.prompts, byte for byte (``invoke`` still takes ``phase``).

The ``app`` a wrapper takes is anything with the original SDK's coroutine method for it:

* ``await app.harness(prompt, *, schema, cwd, provider, model, max_turns, max_budget_usd, env,
  schema_max_retries, [server], [project_dir])`` (the original's ``opencode_server`` is ``server``: a running
  host server the judge attaches to, from the config's ``harness_server``) returning a result with ``parsed``,
  ``is_error``, ``error_message`` and ``cost_usd`` attributes;
* ``await app.ai(*, system, user, schema, model)`` returning the schema instance, a dict, or an
  object with ``parsed`` and ``cost_usd`` (:class:`~pasture.gates.openai_chat.ChatResult`).

The real ones: :class:`~pasture.gates.harness.HostHarnessBackend` (``harness``) and
:class:`~pasture.gates.openai_chat.OpenAIChatClient` (``ai``). No pydantic: without a config, the
wrappers read the environment through :class:`~pasture.gates._env.EnvAIConfig`.
"""

from __future__ import annotations

import logging
from typing import Any, Generic, TypeVar

from pasture.gates.errors import AIIntegrationError
from pasture.gates.prompts import build_schema_retry_prompt, harness_prompt
from pasture.gates.retry import CostTracker, Sleeper, run_with_retry

SchemaT = TypeVar("SchemaT")

logger = logging.getLogger(__name__)

MAX_SCHEMA_RETRIES = 3


def _config_from_env() -> Any:
    from pasture.gates._env import EnvAIConfig

    return EnvAIConfig.from_env()


class _Wrapper:
    def __init__(self, app: Any, config: Any = None, *, sleep: Sleeper | None = None) -> None:
        self.app = app
        self.config = config or _config_from_env()
        self.sleep = sleep
        self._cost_tracker = CostTracker()

    @property
    def total_cost_usd(self) -> float:
        return self._cost_tracker.total_cost_usd

    @property
    def invocation_count(self) -> int:
        return self._cost_tracker.invocation_count

    async def _run_with_retry(self, operation: Any) -> Any:
        return await run_with_retry(operation, self.config, self.sleep)


def _accept(result: Any, schema: type[SchemaT], phase: str | None) -> SchemaT | None:
    """The schema instance a harness result carries; None when it parsed nothing (schema-retry).

    An error result raises the phase-tagged harness failure; a non-empty parse that is neither the
    schema nor a dict of its fields raises "invalid payload", as the original does.
    """
    if getattr(result, "is_error", False):
        raise _harness_failure(phase, result)
    parsed = getattr(result, "parsed", None)
    if isinstance(parsed, schema):
        return parsed
    if isinstance(parsed, dict):
        return schema(**parsed)
    if isinstance(result, schema):
        return result
    if parsed:
        raise AIIntegrationError(f"Harness returned invalid payload for schema {schema.__name__}")
    return None


def _harness_failure(phase: str | None, result: Any) -> AIIntegrationError:
    message = getattr(result, "error_message", "unknown harness error")
    return AIIntegrationError(f"Harness failure{f' ({phase})' if phase else ''}: {message}")


class HarnessWrapper(_Wrapper, Generic[SchemaT]):
    """Runs a coding-agent harness with phase + schema guidance, retries, and schema retries."""

    async def _call_harness(
        self,
        prompt: str,
        *,
        schema: type[SchemaT],
        cwd: str,
        project_dir: str | None,
        model: str | None,
        max_turns: int | None,
        max_budget_usd: float | None,
    ) -> Any:
        async def _operation() -> Any:
            extra_kwargs: dict[str, Any] = {}
            if getattr(self.config, "harness_server", None):  # a config may carry no attach server
                extra_kwargs["server"] = self.config.harness_server
            if project_dir:
                extra_kwargs["project_dir"] = project_dir
            return await self.app.harness(
                prompt,
                schema=schema,
                cwd=cwd,
                provider=self.config.provider,
                model=model or self.config.harness_model,
                max_turns=max_turns or self.config.max_turns,
                max_budget_usd=max_budget_usd,
                env=self.config.provider_env(),
                schema_max_retries=0,
                **extra_kwargs,
            )

        result = await self._run_with_retry(_operation)
        self._cost_tracker.register_cost(getattr(result, "cost_usd", None))
        return result

    async def _invoke_with_schema_retry(
        self,
        *,
        schema: type[SchemaT],
        cwd: str,
        project_dir: str | None = None,
        model: str | None = None,
        max_turns: int | None = None,
        max_budget_usd: float | None = None,
        phase: str | None = None,
    ) -> SchemaT:
        """Re-run the harness with the schema spelled out, at most ``MAX_SCHEMA_RETRIES`` times."""
        for retry_count in range(MAX_SCHEMA_RETRIES):
            error_detail = f"Retry attempt {retry_count + 1}/{MAX_SCHEMA_RETRIES}"
            retry_task = build_schema_retry_prompt(schema, error_detail, cwd)
            retry_prompt = harness_prompt(retry_task, phase, cwd, schema)
            logger.info("Schema validation retry %d/%d with schema context", retry_count + 1, MAX_SCHEMA_RETRIES)
            result = await self._call_harness(
                retry_prompt,
                schema=schema,
                cwd=cwd,
                project_dir=project_dir,
                model=model,
                max_turns=max_turns,
                max_budget_usd=max_budget_usd,
            )
            accepted = _accept(result, schema, phase)
            if accepted is not None:
                return accepted
        raise AIIntegrationError(f"Schema validation failed after {MAX_SCHEMA_RETRIES} retries with schema context")

    async def invoke(
        self,
        *,
        prompt: str,
        schema: type[SchemaT],
        cwd: str,
        project_dir: str | None = None,
        model: str | None = None,
        max_turns: int | None = None,
        max_budget_usd: float | None = None,
        phase: str | None = None,
    ) -> SchemaT:
        self._cost_tracker.register_invocation()
        enhanced_prompt = harness_prompt(prompt, phase, cwd, schema)
        result = await self._call_harness(
            enhanced_prompt,
            schema=schema,
            cwd=cwd,
            project_dir=project_dir,
            model=model,
            max_turns=max_turns,
            max_budget_usd=max_budget_usd,
        )
        accepted = _accept(result, schema, phase)
        if accepted is not None:
            return accepted
        return await self._invoke_with_schema_retry(
            schema=schema,
            cwd=cwd,
            project_dir=project_dir,
            model=model,
            max_turns=max_turns,
            max_budget_usd=max_budget_usd,
            phase=phase,
        )


class AIGateWrapper(_Wrapper):
    """One structured chat call (system + user + schema + model), retried, cost-tracked.

    Cost is read from what ``app.ai`` returns (``cost_usd``, which the OpenAI-compatible backend
    takes from the response's usage). The original read it off the parsed model, which never has
    that attribute, so it always recorded 0: this difference is deliberate.
    """

    async def invoke(self, *, user: str, schema: type[SchemaT], system: str | None = None) -> SchemaT:
        self._cost_tracker.register_invocation()

        async def _operation() -> Any:
            return await self.app.ai(system=system, user=user, schema=schema, model=self.config.ai_model)

        result = await self._run_with_retry(_operation)
        self._cost_tracker.register_cost(getattr(result, "cost_usd", None))

        if isinstance(result, schema):
            return result
        # A response envelope (ChatResult) carries the decoded content in `parsed`.
        payload = result.parsed if _is_response_envelope(result) else result
        if isinstance(payload, schema):
            return payload
        if isinstance(payload, dict):
            return schema(**payload)
        raise AIIntegrationError(f"AI gate returned invalid payload for schema {schema.__name__}")


def _is_response_envelope(result: Any) -> bool:
    return bool(getattr(result, "is_response_envelope", False))
