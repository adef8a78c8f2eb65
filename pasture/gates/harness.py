"""The harness backend: run a real coding-agent host headless and read its structured output.

``await HostHarnessBackend(judges=...).harness(prompt, schema=..., cwd=..., provider=..., ...)``

1. runs the host (its judge's command line, :class:`~pasture.gates.agents.Judge`) with ``cwd`` as its
   working directory and the prompt on stdin, under a wall-clock timeout;
2. reads ``<cwd>/.agentfield_output.json`` if this run wrote it (a file left over from an
   earlier run, unchanged, does not count), else falls back to the JSON found in the host's
   final message on stdout;
3. validates that JSON against ``schema``; ``parsed`` is the model instance, or None when there
   was no JSON or it did not validate (the wrapper's schema-retry loop takes it from there).

A host that ran and failed comes back as ``is_error=True`` with a message (never raised, so the
wrapper reports it as "Harness failure"); only a run that could not complete raises: a launch
failure (:class:`HarnessLaunchError`, not transient) or the timeout (:class:`HarnessTimeoutError`,
whose message says "timed out", so the wrapper's retry loop treats it as transient).

Stdlib only; pydantic is only touched through the schema object the caller passes.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from pasture import PastureError
from pasture.gates.agents import (
    MAX_OUTPUT,
    HostOutput,
    HostOutputTooLarge,
    HostRequest,
    HostRun,
    Judge,
    UnsupportedHostError,
    read_file_capped,
    resolve_host,
)
from pasture.gates.openai_chat import decode_json_content
from pasture.gates.prompts import OUTPUT_FILENAME

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "MAX_OUTPUT",
    "HarnessLaunchError",
    "HarnessOutputTooLarge",
    "HarnessResult",
    "HarnessTimeoutError",
    "HostHarnessBackend",
    "UnsupportedHostError",
    "extract_json",
    "validate_into",
]

DEFAULT_TIMEOUT_SECONDS = 900.0


class HarnessLaunchError(PastureError, RuntimeError):
    """The host could not be started (binary missing, not executable, bad working dir)."""


class HarnessTimeoutError(PastureError, RuntimeError):
    """The host run exceeded the backend's timeout and was killed."""


HarnessOutputTooLarge = HostOutputTooLarge  # the judge's output past MAX_OUTPUT; its run is killed
_CHUNK = 64 << 10
STDERR_TAIL = 64 << 10  # of the judge's stderr, only the end is kept (for the failure line)


async def read_capped(stream: Any, limit: int) -> bytes:
    """All of `stream`, read in chunks; HarnessOutputTooLarge once it passes `limit` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await stream.read(min(_CHUNK, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise HarnessOutputTooLarge(
                f"the judge printed more than {limit >> 20} MiB; pasture reads at most that much"
            )
        chunks.append(chunk)


async def read_tail(stream: Any, keep: int) -> bytes:
    """`stream` drained to its end (so the judge never blocks on it), keeping its last `keep` bytes."""
    tail = bytearray()
    while True:
        chunk = await stream.read(_CHUNK)
        if not chunk:
            return bytes(tail)
        tail += chunk
        del tail[:-keep]


async def _communicate(process: asyncio.subprocess.Process, data: bytes | None) -> tuple[bytes, bytes]:
    """communicate() with bounded reading: stdout up to MAX_OUTPUT, the tail of stderr."""

    async def feed() -> None:
        assert process.stdin is not None
        try:
            if data:
                process.stdin.write(data)
                await process.stdin.drain()
            process.stdin.close()
        except (BrokenPipeError, ConnectionResetError):
            pass

    feeding = asyncio.ensure_future(feed())
    tail = asyncio.ensure_future(read_tail(process.stderr, STDERR_TAIL))
    try:
        out = await read_capped(process.stdout, MAX_OUTPUT)
        err = await tail
        await feeding
    except BaseException:
        tail.cancel()
        feeding.cancel()
        raise
    await process.wait()
    return out, err


@dataclass
class HarnessResult:
    """What one host run produced. Attribute names follow the SDK result the wrapper expects."""

    parsed: Any = None
    result: str | None = None
    is_error: bool = False
    error_message: str | None = None
    cost_usd: float | None = None
    num_turns: int | None = None
    duration_ms: int | None = None
    host: str | None = None
    returncode: int | None = None
    output_source: str | None = None  # "file", "stdout" or None
    validation_error: str | None = None
    stderr_tail: str | None = None


def extract_json(text: str | None) -> Any:
    """The JSON value a final message carries: the whole text (fence allowed), else the first
    ``{...}`` object embedded in it; None when there is none."""
    if not text:
        return None
    whole = decode_json_content(text)
    if whole is not None:
        return whole
    decoder = json.JSONDecoder()
    index = text.find("{")
    while index != -1:
        try:
            value, _ = decoder.raw_decode(text, index)
        except ValueError:
            index = text.find("{", index + 1)
            continue
        if isinstance(value, dict):
            return value
        index = text.find("{", index + 1)
    return None


def validate_into(schema: Any, value: Any) -> tuple[Any, str | None]:
    """``(instance, None)`` if ``value`` validates against ``schema``, else ``(None, why)``."""
    if value is None:
        return None, "no JSON output"
    try:
        if hasattr(schema, "model_validate"):
            return schema.model_validate(value), None
        if isinstance(value, dict):
            return schema(**value), None
        return None, f"expected a JSON object, got {type(value).__name__}"
    except Exception as exc:  # pydantic.ValidationError, ValueError, TypeError
        return None, str(exc)


def _stat_key(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _kill_group(process: asyncio.subprocess.Process) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        try:
            process.kill()
        except ProcessLookupError:
            pass


class HostHarnessBackend:
    """Runs a coding-agent host headless; the ``app.harness`` seam of HarnessWrapper.

    ``judges`` are the hosts it can run (host name -> its :class:`~pasture.gates.agents.Judge`: the hosts'
    own, pasture.runtime.agentgate.judges()); ``binaries`` maps host name to an executable path;
    ``base_env`` is the environment the host inherits (default: this process's); ``extra_args``
    maps host name to arguments appended to its command line (e.g. ``-c`` overrides for Codex).
    """

    def __init__(
        self,
        *,
        judges: Mapping[str, Judge],
        binaries: Mapping[str, str] | None = None,
        base_env: Mapping[str, str] | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        bypass_permissions: bool = False,
        extra_args: Mapping[str, list[str] | tuple[str, ...]] | None = None,
    ) -> None:
        self.judges = dict(judges)
        unknown = set(binaries or {}) - set(self.judges)
        if unknown:
            raise UnsupportedHostError(f"unknown host(s) in binaries: {', '.join(sorted(unknown))}")
        self.binaries = dict(binaries or {})
        self.base_env = dict(base_env) if base_env is not None else None
        self.timeout = timeout
        self.bypass_permissions = bypass_permissions
        self.extra_args = {k: tuple(v) for k, v in (extra_args or {}).items()}
        # the most recent command lines started, for diagnostics and tests
        self.runs: collections.deque[HostRun] = collections.deque(maxlen=64)

    async def harness(
        self,
        prompt: str,
        *,
        schema: Any,
        cwd: str,
        provider: str,
        model: str | None = None,
        max_turns: int | None = None,
        max_budget_usd: float | None = None,
        env: Mapping[str, str] | None = None,
        schema_max_retries: int = 0,
        project_dir: str | None = None,
        server: str | None = None,
    ) -> HarnessResult:
        """One host run. ``schema_max_retries`` is accepted for signature parity and ignored:
        this backend never retries on its own (schema retries are the wrapper's job). ``server``: a
        running host server the judge attaches to; a judge whose host cannot attach ignores it."""
        host = resolve_host(provider, self.judges)
        workdir = Path(cwd)
        try:
            workdir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise HarnessLaunchError(f"cannot create working directory {cwd}: {exc.strerror}") from None
        output_file = workdir / OUTPUT_FILENAME
        before = _stat_key(output_file)

        scratch = tempfile.mkdtemp(prefix="pasture-harness-")
        try:
            request = HostRequest(
                prompt=prompt,
                cwd=str(workdir),
                model=model,
                binary=self.binaries.get(host.name, host.default_binary),
                scratch_dir=scratch,
                max_turns=max_turns,
                max_budget_usd=max_budget_usd,
                project_dir=project_dir,
                server=server,
                bypass_permissions=self.bypass_permissions,
                extra_args=self.extra_args.get(host.name, ()),
            )
            run = host.command(request)
            self.runs.append(run)
            proc_env = dict(self.base_env if self.base_env is not None else os.environ)
            proc_env.update(env or {})
            proc_env.update(run.env)
            started = time.monotonic()
            stdout, stderr, returncode = await self._execute(run, str(workdir), proc_env)
            duration_ms = int((time.monotonic() - started) * 1000)
            output = host.read_output(stdout, stderr, returncode, run)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

        return self._result(host.name, output, output_file, before, schema, returncode, duration_ms, stderr)

    async def _execute(self, run: HostRun, cwd: str, env: dict[str, str]) -> tuple[str, str, int]:
        try:
            process = await asyncio.create_subprocess_exec(
                *run.argv,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except FileNotFoundError:
            raise HarnessLaunchError(f"harness binary not found: {run.argv[0]}") from None
        except PermissionError:
            raise HarnessLaunchError(f"harness binary not executable: {run.argv[0]}") from None
        try:
            out, err = await asyncio.wait_for(_communicate(process, run.stdin), self.timeout)
        except HarnessOutputTooLarge:
            _kill_group(process)
            # Python 3.11's Process.wait() returns only once every pipe has reached its end, and the
            # stdout left unread is paused: drop what is left (the judge is dead, so it is at most
            # what the pipes hold) or the wait never ends
            for stream in (process.stdout, process.stderr):
                while stream is not None and await stream.read(_CHUNK):
                    pass
            await process.wait()
            raise
        except asyncio.TimeoutError:
            _kill_group(process)
            await process.wait()
            raise HarnessTimeoutError(f"harness run timed out after {self.timeout:g}s") from None
        except BaseException:  # cancelled: do not leave the host running
            _kill_group(process)
            raise
        return out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), process.returncode or 0

    @staticmethod
    def _result(
        host: str,
        output: HostOutput,
        output_file: Path,
        before: tuple[int, int, int] | None,
        schema: Any,
        returncode: int,
        duration_ms: int,
        stderr: str,
    ) -> HarnessResult:
        value: Any = None
        source: str | None = None
        after = _stat_key(output_file)
        if after is not None and after != before:  # written (or rewritten) by this run
            text = read_file_capped(str(output_file), "the judge's output file")
            value = decode_json_content(text)
            if value is not None:
                source = "file"
        if value is None:
            value = extract_json(output.final_text)
            if value is not None:
                source = "stdout"
        parsed, why = validate_into(schema, value) if not output.is_error else (None, None)
        tail = stderr.strip()[-2000:] or None
        return HarnessResult(
            parsed=parsed,
            result=output.final_text,
            is_error=output.is_error,
            error_message=output.error_message,
            cost_usd=output.cost_usd,
            num_turns=output.num_turns,
            duration_ms=duration_ms,
            host=host,
            returncode=returncode,
            output_source=source,
            validation_error=why,
            stderr_tail=tail,
        )
