"""The AI and agent gates: the Python port of sec-af's ``harness.py``, on real backends.

Public names load lazily (PEP 562). Nothing here imports pydantic or anything else outside the
standard library: the gates run on the hook path, when a policy selects them.

Module map:

* ``prompts``      the prompt builders (phase guidance, file-write hint, schema guidance/retry)
* ``retry``        ``is_transient_error``, the retry loop, the cost tracker
* ``_env``         ``EnvAIConfig``: the seed's settings, read from its environment table
* ``wrappers``     ``HarnessWrapper`` (the agent gate's engine), ``AIGateWrapper`` (the AI gate's)
* ``openai_chat``  the OpenAI-compatible chat-completions backend (urllib)
* ``agents``       what a judge run headless is (``Judge``; each host's own is its wire's ``AGENT_JUDGE``)
* ``harness``      the harness backend: run a host in a working dir, read its JSON output
* ``gate``         ``ai_gate_decide``: the ``ai`` gate kind for the runtime
* ``agent``        ``agent_gate``: the ``agent`` gate kind (a host run headless as the judge)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "EnvAIConfig": "_env",
    "is_transient_error": "retry",
    "TRANSIENT_PATTERNS": "retry",
    "run_with_retry": "retry",
    "CostTracker": "retry",
    "with_file_write_hint": "prompts",
    "with_phase_guidance": "prompts",
    "schema_guidance": "prompts",
    "build_schema_retry_prompt": "prompts",
    "harness_prompt": "prompts",
    "PHASE_GUIDANCE": "prompts",
    "HarnessWrapper": "wrappers",
    "AIGateWrapper": "wrappers",
    "AIIntegrationError": "errors",
    "AIGateError": "errors",
    "AIGateTimeout": "errors",
    "AIGateExhausted": "errors",
    "AIGateInvalidOutput": "errors",
    "AIGateBackendError": "errors",
    "AIGateConfigError": "errors",
    "OpenAIChatClient": "openai_chat",
    "ChatResult": "openai_chat",
    "HostHarnessBackend": "harness",
    "HarnessResult": "harness",
    "ai_gate_decide": "gate",
    "GateDecision": "gate",
    "agent_gate": "agent",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # pragma: no cover
    # `X as X`: re-exports (ruff cannot read the computed __all__)
    from pasture.gates._env import EnvAIConfig as EnvAIConfig
    from pasture.gates.agent import agent_gate as agent_gate
    from pasture.gates.errors import (
        AIGateBackendError as AIGateBackendError,
    )
    from pasture.gates.errors import (
        AIGateConfigError as AIGateConfigError,
    )
    from pasture.gates.errors import (
        AIGateError as AIGateError,
    )
    from pasture.gates.errors import (
        AIGateExhausted as AIGateExhausted,
    )
    from pasture.gates.errors import (
        AIGateInvalidOutput as AIGateInvalidOutput,
    )
    from pasture.gates.errors import (
        AIGateTimeout as AIGateTimeout,
    )
    from pasture.gates.errors import (
        AIIntegrationError as AIIntegrationError,
    )
    from pasture.gates.gate import GateDecision as GateDecision
    from pasture.gates.gate import ai_gate_decide as ai_gate_decide
    from pasture.gates.harness import HarnessResult as HarnessResult
    from pasture.gates.harness import HostHarnessBackend as HostHarnessBackend
    from pasture.gates.openai_chat import ChatResult as ChatResult
    from pasture.gates.openai_chat import OpenAIChatClient as OpenAIChatClient
    from pasture.gates.prompts import (
        PHASE_GUIDANCE as PHASE_GUIDANCE,
    )
    from pasture.gates.prompts import (
        build_schema_retry_prompt as build_schema_retry_prompt,
    )
    from pasture.gates.prompts import (
        harness_prompt as harness_prompt,
    )
    from pasture.gates.prompts import (
        schema_guidance as schema_guidance,
    )
    from pasture.gates.prompts import (
        with_file_write_hint as with_file_write_hint,
    )
    from pasture.gates.prompts import (
        with_phase_guidance as with_phase_guidance,
    )
    from pasture.gates.retry import (
        TRANSIENT_PATTERNS as TRANSIENT_PATTERNS,
    )
    from pasture.gates.retry import (
        CostTracker as CostTracker,
    )
    from pasture.gates.retry import (
        is_transient_error as is_transient_error,
    )
    from pasture.gates.retry import (
        run_with_retry as run_with_retry,
    )
    from pasture.gates.wrappers import (
        AIGateWrapper as AIGateWrapper,
    )
    from pasture.gates.wrappers import (
        HarnessWrapper as HarnessWrapper,
    )
