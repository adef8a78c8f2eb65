"""OpenCode: one self-contained TypeScript plugin per contract, v1 (1.x) or v2 (2.x) by host major.

Protocol between the generated plugin and ``pasture hook lifecycle`` (the runtime implements the
Python side from this note; the plugin side is templates/opencode/_runtime.ts.j2)
==================================================================================================

Spawn. One process per hook call, started with an argv array (never a shell string)::

    [$PASTURE_BIN or "pasture", "hook", "lifecycle", "--harness", "opencode",
     "--event", <native name>, "--host-version", <contract version, e.g. "1.18.29">]

The words after the binary are ``commands.argv`` (the same for every adapter). The working
directory is the plugin instance's project directory when the host gives one (1.x:
``PluginInput.directory``; 2.x: ``ctx.location.directory`` if present), else the host's own. The
environment is the host's, unchanged.

stdin. Exactly one UTF-8 JSON object, then EOF:

* 1.x named hook (surface ``opencode-named-output``):
  ``{"event": <native name>, "input": <hook input>, "output": <hook output>}``
* 1.x bus event (surface ``opencode-catch-all-sse``, the ``event`` hook; only the declared types):
  ``{"event": <event type>, "input": <bus event {id, type, properties}>}``
* 2.x hook (``ctx.<domain>.hook(<name>)``; native name is ``<domain>.<name>``): the host passes a
  single mutable event object, sent as ``{"event": <native name>, "input": <event>}``.
* 2.x bus event (``ctx.event.subscribe(<type>)``): ``{"event": <type>, "input": <event>}``.

Values JSON cannot carry are encoded as JSON.stringify does (functions dropped, a ``Request`` or
``Response`` becomes ``{}``), except BigInt (a decimal string) and a reference cycle (the string
``"[Circular]"``).

stdout. Exactly one JSON object (surrounding whitespace allowed), nothing else:

* ``{"decision": "proceed"}``
* ``{"decision": "deny", "reason": "<non-empty text>"}``
* ``{"decision": "ask", "reason": "<non-empty text>"}``

Other keys are ignored. Exit status 0. stderr is free text; the plugin logs at most its first 8 KiB
and never shows it to the model.

Failure. A non-zero exit, death by signal, a failure to start, more than 1 MiB on stdout, stdout
that is not one such object (including deny/ask without a reason), or no exit within the row's
timeout (the process is then killed) is a runtime failure. Timeouts are ``commands.timeout`` (10 s
for observations, 60 s otherwise, unless the row sets one); ``PASTURE_HOOK_TIMEOUT_MS`` (1..600000)
overrides them at run time.

What the plugin does with the answer is fixed per row (``_row_view``):

* ``refusal: "throw"`` (semantic gate-consultation, effective failure throw-fail-fast): deny or ask
  throws ``new Error(reason)``, the only refusal channel in 1.x (the model sees exactly the
  reason). There is no way to ask a human from these hooks, so ask refuses like deny.
* ``refusal: "effect"`` (2.x ``permission.evaluate`` with cited deny evidence): deny sets
  ``event.effect = "deny"`` and ``event.message = reason``; ask does the same unless the row's
  response capability includes ask, then it sets ``"ask"``.
* ``failFast`` (effective failure throw-fail-fast and not an observation): a runtime failure throws
  (the message names the event and the kind of failure, never stderr); on every other row it is
  logged and the host proceeds.
* Observation rows and bus rows never throw and never write. Bus events are delivered in arrival
  order, one process at a time, from a bounded queue (overflow is dropped and logged).
* The decision carries no mutation yet: no row writes to its hook output (``output.args`` and the
  rest stay untouched) whatever its mutation mode allows; the only write is the ``effect`` refusal
  above, on a row whose mutation mode is output or output-object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..contracts import Contract, EventRow
from ..vocab import EventSemantic, FailureMode, Harness, HookSurface, MutationMode
from . import commands
from .artifact import Artifact, header
from .env import render

PLUGIN_FILE = "pasture-lifecycle.ts"
PLUGIN_ID = "pasture-lifecycle"
# 1.x loads every export of the module as a plugin function: this is the only one.
V1_EXPORT = "PastureLifecycle"

MAX_STDOUT_BYTES = 1024 * 1024
MAX_STDERR_BYTES = 8 * 1024
BUS_QUEUE_LIMIT = 1000
LOG_SERVICE = "pasture-lifecycle"

# 2.x registers hooks per domain of the plugin context: ctx.session.hook("prompt"), ...
V2_HOOK_DOMAINS = ("session", "tool", "permission", "shell")
# 2.x hooks whose event carries a host-honoured decision field (packages/core/src/permission.ts:
# evaluateInput returns event.effect and event.message to the caller).
V2_EFFECT_HOOKS = frozenset({"permission.evaluate"})


class OpenCodeRenderError(ValueError):
    pass


@dataclass(frozen=True)
class _Hook:
    name: str  # native name, e.g. "tool.execute.before"
    domain: str  # 2.x only: "tool"
    hook: str  # 2.x only: "execute.before"
    refusal: str


def opencode_artifacts(contract: Contract) -> list[Artifact]:
    if contract.harness is not Harness.OPENCODE:
        raise OpenCodeRenderError(f"{contract.id} is not an OpenCode contract")
    major = contract.version.major
    if major == 1:
        template = "opencode/plugin-v1.ts.j2"
    elif major == 2:
        template = "opencode/plugin-v2.ts.j2"
    else:
        raise OpenCodeRenderError(
            f"{contract.lifecycle_file}: no OpenCode plugin flavour for host major version {major} "
            "(1.x: Hooks object, 2.x: Plugin.define)")
    view = _view(contract, major)
    text = render(template, **view)
    return [Artifact(f"{contract.id}/{PLUGIN_FILE}", text, contract.id)]


def _view(contract: Contract, major: int) -> dict[str, Any]:
    rows = {row.name: _row_view(contract, row, major) for row in contract.events}
    named = [_hook(row, rows[row.name]["refusal"], major) for row in contract.events
             if row.surface is HookSurface.OPENCODE_NAMED_OUTPUT]
    bus = [row.name for row in contract.events if row.surface is HookSurface.OPENCODE_CATCH_ALL_SSE]
    before, after = _argv_frame(contract)
    return {
        "header": header("//", contract.lifecycle_file),
        "contract": {
            "id": contract.id,
            "harness": contract.harness.value,
            "hostVersion": str(contract.version),
            "profile": contract.lifecycle_file,
        },
        "argv": {"before": before, "after": after},
        "limits": {
            "maxStdoutBytes": MAX_STDOUT_BYTES,
            "maxStderrBytes": MAX_STDERR_BYTES,
            "busQueueLimit": BUS_QUEUE_LIMIT,
        },
        "rows": rows,
        "named": named,
        "bus": bus,
        "plugin_id": PLUGIN_ID,
        "v1_export": V1_EXPORT,
        "log_service": LOG_SERVICE,
    }


def _argv_frame(contract: Contract) -> tuple[list[str], list[str]]:
    """commands.argv split around the event name: the plugin inserts the name it was called for."""
    frame: tuple[list[str], list[str]] | None = None
    for row in contract.events:
        words = commands.argv(contract, row)
        at = [i for i, word in enumerate(words) if word == row.name]
        if len(at) != 1:
            raise OpenCodeRenderError(f"{contract.id}: the runtime argv for {row.name!r} does not hold the "
                                      "event name exactly once")
        this = (words[:at[0]], words[at[0] + 1:])
        if frame is not None and this != frame:
            raise OpenCodeRenderError(f"{contract.id}: the runtime argv differs between rows beyond the event name")
        frame = this
    if frame is None:
        raise OpenCodeRenderError(f"{contract.lifecycle_file}: no event rows to generate a plugin for")
    return frame


def _row_view(contract: Contract, row: EventRow, major: int) -> dict[str, Any]:
    bus = row.surface is HookSurface.OPENCODE_CATCH_ALL_SSE
    observation = row.semantic is EventSemantic.OBSERVATION
    throws = row.failure is FailureMode.THROW_FAIL_FAST
    fail_fast = throws and not observation and not bus
    refusal = "none"
    if not bus and row.semantic is EventSemantic.GATE_CONSULTATION:
        if (major == 2 and row.name in V2_EFFECT_HOOKS and row.response.allows_deny
                and row.mutation in (MutationMode.OUTPUT, MutationMode.OUTPUT_OBJECT)):
            refusal = "effect"
        elif throws:
            refusal = "throw"
    return {
        "surface": row.surface.value,
        "semantic": row.semantic.value,
        "mutation": row.mutation.value,
        "declaredFailure": row.declared_failure.value,
        "failure": row.failure.value,
        "response": row.response.value,
        "refusal": refusal,
        "failFast": fail_fast,
        "timeoutMs": commands.timeout(row) * 1000,
        "evidence": row.evidence,
        "note": row.note,
    }


def _hook(row: EventRow, refusal: str, major: int) -> _Hook:
    if major == 1:
        return _Hook(row.name, "", "", refusal)
    domain, _, hook = row.name.partition(".")
    if domain not in V2_HOOK_DOMAINS or not hook:
        raise OpenCodeRenderError(
            f"{row.name!r}: a 2.x hook name is <domain>.<hook> with domain one of {', '.join(V2_HOOK_DOMAINS)}")
    return _Hook(row.name, domain, hook, refusal)
