"""`pasture journal export --otlp URL`: journal records as OpenTelemetry log records over OTLP/HTTP.

Through the official SDK (opentelemetry-sdk) and exporter (opentelemetry-exporter-otlp-proto-http),
the optional extra `pasture[otlp]`; readers only, the hook path never imports this. The
exporter honours the standard OTEL_EXPORTER_OTLP_[LOGS_]HEADERS, _TIMEOUT, _COMPRESSION,
_CERTIFICATE, _CLIENT_KEY and _CLIENT_CERTIFICATE variables, and OTEL_SERVICE_NAME /
OTEL_RESOURCE_ATTRIBUTES name the resource (service.name defaults to "pasture").

Each record is sent once: a cursor per endpoint (table `cursors`, keyed "otlp <endpoint>") holds the
highest id the receiver accepted, and advances only after a batch's export succeeded; a failed
batch is kept for the next export. (A receiver that accepted a batch whose answer was lost gets it
again: at least once, never silently skipped.) The SDK counts any 3xx answer as success without
following it, so the session here follows a redirect itself, POSTing the batch again, only to the
same host (http to https allowed, at most MAX_HOPS); any other 3xx is a batch not delivered.

Attribute names follow the OpenTelemetry semantic conventions where one exists (session.id,
gen_ai.tool.name, gen_ai.tool.call.id, log.record.uid) and are `pasture.*` otherwise; see ATTRIBUTES.
"""

from __future__ import annotations

import calendar
import os
import time
from typing import Any

from pasture import PastureError, __version__

SCOPE = "pasture.journal"
EVENT_NAME = "pasture.hook.decision"
# journal column -> log attribute
ATTRIBUTES = {
    "uid": "log.record.uid",
    "session": "session.id",
    "tool_name": "gen_ai.tool.name",
    "id": "pasture.journal.id",
    "harness": "pasture.harness",
    "host_version": "pasture.host.version",
    "contract": "pasture.contract",
    "event": "pasture.event",
    "semantic": "pasture.semantic",
    "decision": "pasture.decision",
    "answer": "pasture.answer",
    "layer": "pasture.layer",
    "rule": "pasture.rule",
    "gate": "pasture.gate",
    "reason": "pasture.reason",
    "failure": "pasture.failure",
    "runtime_ms": "pasture.runtime_ms",
    "cpu_ms": "pasture.cpu_ms",
    "detail": "pasture.detail",
}
TOOL_CALL = "gen_ai.tool.call.id"  # from the envelope's identities
# A value longer than this is cut in the exported copy (the journal keeps it whole), so one huge
# envelope cannot make every later export fail on a receiver's (or the exporter's) request limit.
MAX_VALUE = 1 << 20
BATCH_BYTES = 4 << 20  # a request holds at most this much text, whatever --batch says
MAX_HOPS = 5  # redirects followed for one request


def cursor(conn: Any, name: str) -> int:
    """The highest id the endpoint `name` accepted (0: none yet)."""
    found = conn.execute("SELECT last_id FROM cursors WHERE name = ?", (name,)).fetchone()
    return found[0] if found else 0


def advance(path: str, name: str, last_id: int) -> None:
    """Record that `name` accepted everything up to `last_id` (never moves back)."""
    from pasture.journal import db as journaldb

    conn = journaldb.connect(path)
    try:
        conn.execute(
            "INSERT INTO cursors (name, last_id, at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE "
            "SET last_id = max(last_id, excluded.last_id), at = excluded.at",
            (name, last_id, journaldb.now_text()),
        )
    finally:
        conn.close()


class ExportError(PastureError):
    """The export could not run or a batch was refused; the message says which and what was kept."""


def redirect_problem(current: str, target: str) -> str | None:
    """None when a redirect from `current` to `target` may be followed: the same host name, over
    http(s), never from https down to http (the port may change: http to https moves it)."""
    from urllib.parse import urlsplit

    here, there = urlsplit(current), urlsplit(target)
    if there.scheme not in ("http", "https") or (here.hostname or "") != (there.hostname or "~"):
        return f"{target} is not the same host over http(s); pasture follows a redirect only to {here.hostname}"
    if here.scheme == "https" and there.scheme == "http":
        return f"{target} would go from https to http"
    return None


def _redirecting_session() -> Any:
    """A requests session that follows a 3xx to the same host itself (the SDK asks for none and
    counts a 3xx as delivered); `problem` says why the last request's 3xx was not followed."""
    import requests

    class Session(requests.Session):
        problem: str | None = None

        def request(
            self, method: Any, url: Any, *args: Any, **kwargs: Any
        ) -> Any:  # the same call; the redirects are ours
            from urllib.parse import urljoin

            self.problem = None
            kwargs["allow_redirects"] = False
            current = url
            for _hop in range(MAX_HOPS + 1):
                response = super().request(method, current, *args, **kwargs)
                code = response.status_code
                if not 300 <= code < 400:
                    return response
                location = response.headers.get("Location")
                if not location:
                    self.problem = f"the receiver answered {code} with no Location"
                    return response
                target = urljoin(current, location)
                why = redirect_problem(current, target)
                if why is not None:
                    self.problem = f"the receiver answered {code}, a redirect to {why}"
                    return response
                current = target
            self.problem = f"the receiver answered with more than {MAX_HOPS} redirects (the last to {current})"
            return response

    return Session()


def endpoint_for(url: str, env: dict) -> str:
    """The logs endpoint: URL as given ('env': OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, else
    OTEL_EXPORTER_OTLP_ENDPOINT + /v1/logs, as the OTLP spec says); a URL without a path gets /v1/logs."""
    from urllib.parse import urlsplit

    if url == "env":
        if env.get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"):
            url = env["OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"]
        elif env.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
            return env["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/") + "/v1/logs"
        else:
            raise ExportError(
                "--otlp env: neither OTEL_EXPORTER_OTLP_LOGS_ENDPOINT nor OTEL_EXPORTER_OTLP_ENDPOINT "
                "is set; give the URL, e.g. --otlp http://127.0.0.1:4318/v1/logs"
            )
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ExportError(f"--otlp {url!r} is not an http(s) URL, e.g. http://127.0.0.1:4318/v1/logs")
    if parts.path in ("", "/"):
        return url.rstrip("/") + "/v1/logs"
    return url


def _safe(text: str) -> str:
    # Protobuf strings are UTF-8: a lone surrogate (never stored, but a hand-made database may hold
    # one) becomes its escape rather than failing the batch.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _nanos(at: str | None) -> int | None:
    try:
        return calendar.timegm(time.strptime(at or "", "%Y-%m-%dT%H:%M:%SZ")) * 1_000_000_000
    except ValueError:
        return None


def _tool_call(envelope: str | None) -> str | None:
    if not envelope:
        return None
    from pasture.journal.db import deep
    from pasture.runtime.fastjson import JSONError, loads

    try:
        value = deep(loads, envelope)
    except (JSONError, RecursionError):
        return None
    ids = value.get("identities") if isinstance(value, dict) else None
    call = ids.get("tool-call") if isinstance(ids, dict) else None
    return call if isinstance(call, str) else None


def severity(row: dict) -> tuple[Any, str]:
    from opentelemetry._logs import SeverityNumber

    if row.get("failure"):
        return SeverityNumber.ERROR, "ERROR"
    if row.get("decision") == "deny":
        return SeverityNumber.WARN, "WARN"
    return SeverityNumber.INFO, "INFO"


def log_record(row: dict) -> Any:
    """The OpenTelemetry log record for one journal row (body: the envelope JSON as stored)."""
    from opentelemetry._logs import LogRecord

    attributes, cut = {}, []
    for column, name in ATTRIBUTES.items():
        value = row.get(column)
        if value is None:
            continue
        if isinstance(value, str):
            if len(value) > MAX_VALUE:
                value = value[:MAX_VALUE]
                cut.append(name)
            value = _safe(value)
        attributes[name] = value
    call = _tool_call(row.get("envelope"))
    if call is not None:
        attributes[TOOL_CALL] = _safe(call[:MAX_VALUE])
    body = row.get("envelope") or ""
    if len(body) > MAX_VALUE:
        cut.append("body")
        attributes["pasture.envelope.length"] = len(body)
        body = body[:MAX_VALUE]
    if cut:
        attributes["pasture.truncated"] = cut
    number, text = severity(row)
    return LogRecord(
        timestamp=_nanos(row.get("at")),
        observed_timestamp=time.time_ns(),
        severity_number=number,
        severity_text=text,
        body=_safe(body),
        attributes=attributes,
        event_name=EVENT_NAME,
    )


class _Failures:
    """Collects what the exporter logs while it fails (it reports through `logging`, not its result)."""

    def __init__(self) -> None:
        import logging

        self.messages: list[str] = []
        self.handler = logging.Handler(logging.WARNING)
        self.handler.emit = lambda record: self.messages.append(record.getMessage())  # type: ignore[method-assign]  # a one-line sink; a Handler subclass would say the same
        self.logger = logging.getLogger("opentelemetry")

    def __enter__(self) -> _Failures:
        self.propagate = self.logger.propagate
        self.logger.addHandler(self.handler)
        self.logger.propagate = False
        return self

    def __exit__(self, *exc: object) -> None:
        self.logger.removeHandler(self.handler)
        self.logger.propagate = self.propagate


def export_otlp(
    path: str,
    url: str,
    *,
    filters: dict | None = None,
    batch: int = 512,
    retention: dict | None = None,
    env: dict | None = None,
) -> tuple[int, str]:
    """Send every record after the endpoint's cursor; (records sent, endpoint). ExportError when a batch
    is refused (the cursor stays before it) or the OTLP packages are missing."""
    from pasture.journal import db as journaldb

    env = dict(os.environ) if env is None else env
    if filters:
        raise ExportError("--otlp sends every record once (a cursor per endpoint); filters apply to --format only")
    endpoint = endpoint_for(url, env)
    try:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider, LogRecordProcessor
        from opentelemetry.sdk.resources import Resource
    except ImportError as exc:
        raise ExportError(
            f"--otlp needs the OpenTelemetry packages ({exc.name} is missing): pip install 'pasture[otlp]'"
        ) from None

    class Collect(LogRecordProcessor):
        def __init__(self) -> None:
            self.records: list = []

        def on_emit(self, log_record: Any) -> None:
            self.records.append(log_record)

        def shutdown(self) -> None:
            pass

        def force_flush(self, timeout_millis: int = 30000) -> bool:
            return True

    resource = Resource.create(
        {"service.name": env.get("OTEL_SERVICE_NAME") or "pasture", "service.version": __version__}
    )
    provider = LoggerProvider(resource=resource)
    collect = Collect()
    provider.add_log_record_processor(collect)
    logger = provider.get_logger(SCOPE, __version__)
    session = _redirecting_session()
    exporter = OTLPLogExporter(endpoint=endpoint, session=session)
    name = f"otlp {endpoint}"
    from pasture.journal.retention import after_ingest

    conn, _ = journaldb.open_for_reading(path, after_ingest(path, retention))
    if conn is None:
        return 0, endpoint
    sent = 0
    try:
        with _Failures() as failures:
            while True:
                after = cursor(conn, name)
                rows, size = [], 0
                for values in journaldb.select(conn, journaldb.COLUMNS, None, after_id=after):
                    row = dict(zip(journaldb.COLUMNS, values, strict=True))
                    rows.append(row)
                    size += sum(min(len(v), MAX_VALUE) for v in row.values() if isinstance(v, str))
                    if len(rows) >= batch or size >= BATCH_BYTES:
                        break
                if not rows:
                    break
                collect.records.clear()
                for row in rows:
                    logger.emit(log_record(row))
                try:
                    result = exporter.export(list(collect.records))
                    ok = getattr(result, "name", str(result)) == "SUCCESS"
                except Exception as exc:  # noqa: BLE001 - the SDK's exporters may raise on transport errors
                    ok, failures.messages[:] = False, [*failures.messages, f"{type(exc).__name__}: {exc}"]
                if session.problem is not None:  # a 3xx the SDK took for delivered
                    ok, failures.messages[:] = False, [*failures.messages, session.problem]
                if not ok:
                    left = journaldb.count(conn, after_id=after)
                    why = failures.messages[-1] if failures.messages else "the receiver refused the batch"
                    raise ExportError(
                        f"OTLP export to {endpoint} failed after {sent} record(s): {why}; the {left} "
                        f"record(s) not sent are kept and go with the next export"
                    )
                advance(path, name, rows[-1]["id"])
                sent += len(rows)
    finally:
        conn.close()
        exporter.shutdown()  # type: ignore[no-untyped-call]  # opentelemetry's exporter leaves it unannotated
        provider.shutdown()
    return sent, endpoint
