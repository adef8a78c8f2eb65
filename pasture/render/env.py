"""The Jinja environment every template renders in: strict, no autoescape, our own encoders only.

Templates come from the installed package (pasture.templates, mapped from the repository's
templates/). A project's own ``<root>/templates/`` overrides them file by file, the way
openapi-python-client takes a custom template folder: a template found there wins, every other
template comes from the package. An override folder belongs to the project being rendered, which may
not be trusted, so its templates render in Jinja's sandbox (no attribute access that could reach
Python internals); the packaged templates render in the plain environment. The output is the same.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import signal
import stat
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator

import jinja2
import jinja2.compiler
import jinja2.exceptions
import jinja2.nodes
import jinja2.runtime
import jinja2.sandbox

from pasture import PastureError
from pasture.render import encode
from pasture.resources import overridden_templates, template_folders

_ROOT: contextvars.ContextVar[str | None] = contextvars.ContextVar("pasture_template_root", default=None)
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("pasture_template_deadline", default=None)

# Bounds on an override's rendering (the packaged templates render a project in well under a second
# into files of a few KiB each): wall time for one project's templates, characters of output per
# template, and the size of any one value a template builds (string length, list items plus their
# string lengths, range length).
RENDER_SECONDS = 10.0
MAX_OUTPUT = 4 * 1024 * 1024
MAX_VALUE = MAX_OUTPUT
MAX_SOURCE = 1024 * 1024
MAX_MEMORY = 512 * 1024 * 1024


class TemplateLimit(jinja2.exceptions.SecurityError, PastureError):
    """An override template went past a bound (time, size) or reached outside templates/; ``where``
    (file:line) when the template frames of the traceback cannot tell it."""

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message)
        self.where = where


def search_path(root: Path | str | None) -> tuple[str, ...]:
    """The template folders for a project, first match wins (see resources.template_folders)."""
    return template_folders(root)


def overridden(root: Path | str | None) -> list[str]:
    """The packaged template names <root>/templates overrides."""
    return overridden_templates(root)


@contextlib.contextmanager
def templates_of(root: Path | str | None) -> Iterator[None]:
    """Render with the templates of project ``root`` (its overrides, then the package's) inside;
    with overrides, all of it within RENDER_SECONDS (TemplateLimit past that)."""
    token = _ROOT.set(None if root is None else os.fspath(root))
    try:
        if len(search_path(_ROOT.get())) > 1:
            with _time_bound(RENDER_SECONDS):
                yield
        else:
            yield
    finally:
        _ROOT.reset(token)


def _too_slow(seconds: float) -> TemplateLimit:
    return TemplateLimit(f"rendering the templates took longer than {seconds:g} s (a loop too long for a template?)")


@contextlib.contextmanager
def _time_bound(seconds: float) -> Iterator[None]:
    """A deadline the sandbox's hooks check (calls, attribute reads, output), and, in the main thread,
    a timer signal that stops a loop even where no hook runs."""
    if _DEADLINE.get() is not None:  # nested (install renders adapters inside a render): one deadline
        yield
        return
    token = _DEADLINE.set(time.monotonic() + seconds)
    alarm = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if alarm:

        def expired(signum: int, frame: Any) -> None:
            raise _too_slow(seconds)

        previous = signal.signal(signal.SIGALRM, expired)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    memory = _memory_bound()
    try:
        yield
    except MemoryError as exc:
        where = template_line(exc, search_path(_ROOT.get()))
        raise TemplateLimit(
            f"rendering the templates needed more than {MAX_MEMORY >> 20} MiB of memory", where
        ) from None
    finally:
        if memory is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, memory)
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        _DEADLINE.reset(token)


def _memory_bound() -> tuple[int, int] | None:
    """The backstop for whatever the explicit bounds miss (a builtin whose result grows as the
    product of bounded inputs): address space capped at what the process has now plus MAX_MEMORY,
    so a runaway allocation is a MemoryError. Returns the limits to restore; None where the platform
    cannot tell the current size (no /proc) or set the limit."""
    try:
        import resource

        with open("/proc/self/statm", "rb") as fh:
            current = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limits = resource.getrlimit(resource.RLIMIT_AS)
        wanted = current + MAX_MEMORY
        if limits[0] != resource.RLIM_INFINITY and limits[0] <= wanted:
            return None  # already tighter than ours
        if limits[1] != resource.RLIM_INFINITY and limits[1] < wanted:
            return None
        resource.setrlimit(resource.RLIMIT_AS, (wanted, limits[1]))
        return limits
    except (ImportError, OSError, ValueError, IndexError, AttributeError):
        return None


def template_line(exc: BaseException, folders: tuple[str, ...]) -> str | None:
    """file:line of the innermost template frame of an error (Jinja rewrites the traceback so that a
    template's frames carry the template's file and line), else the error's own ``where``."""
    where = getattr(exc, "where", None)
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if any(filename.startswith(folder.rstrip("/") + "/") for folder in folders):
            where = f"{filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


def _check_deadline() -> None:
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() > deadline:
        raise _too_slow(RENDER_SECONDS)


def _size(value: Any) -> int:
    """What a value weighs against MAX_VALUE: a string's length; a list's items plus their strings."""
    if isinstance(value, (str, bytes, range)):
        return len(value)
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        return len(value) + sum(len(v) for v in value if isinstance(v, (str, bytes)))
    return 0


def _bounded(value: Any, what: str) -> Any:
    if _size(value) > MAX_VALUE:
        raise TemplateLimit(f"{what} would be larger than {MAX_VALUE} (items or characters)")
    return value


def _check_args(args: tuple, kwargs: dict, what: str) -> None:
    for arg in (*args, *kwargs.values()):
        if isinstance(arg, int) and not isinstance(arg, bool) and abs(arg) > MAX_VALUE:
            raise TemplateLimit(f"{what} got the number {arg}, larger than {MAX_VALUE}")
        _bounded(arg, what)


def _repeat_bound(left: Any, right: Any) -> None:
    """`*` of a string or list by a number: refuse before Python builds it."""
    for seq, times in ((left, right), (right, left)):
        if isinstance(times, int) and _size(seq) and _size(seq) * max(times, 0) > MAX_VALUE:
            raise TemplateLimit(
                f"repeating a value {times} times would be larger than {MAX_VALUE} (items or characters)"
            )


def _power(left: Any, right: Any) -> Any:
    if (
        isinstance(left, int)
        and isinstance(right, int)
        and right > 0
        and abs(left) > 1
        and right * abs(left).bit_length() > 64 * 1024
    ):
        raise TemplateLimit(f"{left} ** {right} is too large a number for a template")
    return left**right


def _modulo(left: Any, right: Any) -> Any:
    if isinstance(left, (str, bytes)):  # printf-style formatting: a width or precision can be huge
        _check_args(right if isinstance(right, tuple) else (right,), {}, "string formatting")
        import re

        if re.search(r"\d{7,}", left if isinstance(left, str) else left.decode("latin-1")):
            raise TemplateLimit("string formatting with a width or precision that large is refused")
    return _bounded(left % right, "the formatted string")


def _replace_bound(text: Any, old: Any, new: Any) -> None:
    if isinstance(text, str) and isinstance(old, str) and isinstance(new, str):
        grows = (text.count(old) if old else len(text) + 1) * max(len(new) - len(old), 0)
        if len(text) + grows > MAX_VALUE:
            raise TemplateLimit(f"replace would make a string longer than {MAX_VALUE} characters")


class _BoundedCodeGenerator(jinja2.compiler.CodeGenerator):
    """`a ~ b` compiles to a join no sandbox hook sees: bound its result like `+`'s."""

    def visit_Concat(self, node: jinja2.nodes.Concat, frame: jinja2.compiler.Frame) -> None:
        self.write("environment.bounded_value(")
        super().visit_Concat(node, frame)
        self.write(")")


class BoundedSandbox(jinja2.sandbox.SandboxedEnvironment):
    """Jinja's sandbox with bounds: every call, attribute read and output checks the deadline; no
    argument, operand or result is larger than MAX_VALUE; range() and repetition are refused before
    they are built when they would be; a template renders at most MAX_OUTPUT characters."""

    intercepted_binops = frozenset({"*", "**", "%", "+"})
    code_generator_class = _BoundedCodeGenerator

    @staticmethod
    def bounded_value(value: Any) -> Any:
        _check_deadline()
        return _bounded(value, "the joined string")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.globals["range"] = self.range
        self.finalize = self._finalize

    @staticmethod
    def range(*args: int) -> range:
        _check_deadline()
        return _bounded(range(*args), "range()")

    @staticmethod
    def _finalize(value: Any) -> Any:
        _check_deadline()
        return _bounded(value, "an output value")

    def call_binop(self, context: jinja2.runtime.Context, op: str, left: Any, right: Any) -> Any:
        _check_deadline()
        if op == "*":
            _repeat_bound(left, right)
            return self.binop_table[op](left, right)
        if op == "**":
            return _power(left, right)
        if op == "%":
            return _modulo(left, right)
        return _bounded(self.binop_table[op](left, right), "the sum")

    def getattr(self, obj: Any, attribute: str) -> Any:
        _check_deadline()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        _check_deadline()
        return super().getitem(obj, argument)

    def call(  # noqa: N805 (Jinja's signature)
        __self, __context: jinja2.runtime.Context, __obj: Any, *args: Any, **kwargs: Any
    ) -> Any:
        _check_deadline()
        what = f"calling {getattr(__obj, '__name__', type(__obj).__name__)}"
        _check_args(args, kwargs, what)
        owner = getattr(__obj, "__self__", None)
        _bounded(owner, what)  # a list a loop keeps appending to stops growing here
        if getattr(__obj, "__name__", None) == "replace" and isinstance(owner, str) and len(args) >= 2:
            _replace_bound(owner, args[0], args[1])
        result = super().call(__context, __obj, *args, **kwargs)
        _bounded(owner, what)
        return _bounded(result, f"the result of {what}")


def _bounded_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        _check_deadline()
        values = [a for a in args if not isinstance(a, (jinja2.runtime.Context, jinja2.Environment))]
        _check_args(tuple(values), kwargs, f"the {name} filter")
        if name == "replace" and len(values) >= 3:
            _replace_bound(str(values[0]), str(values[1]), str(values[2]))
        return _bounded(func(*args, **kwargs), f"the result of the {name} filter")

    return run


class ConfinedLoader(jinja2.BaseLoader):
    """Templates from one override folder, each resolved (symlinks followed) and refused unless it is
    a regular file inside that folder's real path; a name it lacks falls through (TemplateNotFound)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool] | None]:
        from jinja2.loaders import split_template_path

        path = os.path.join(self.folder, *split_template_path(template))
        if not os.path.lexists(path):
            raise jinja2.TemplateNotFound(template)
        real_folder = os.path.realpath(self.folder)
        if real_folder != os.path.join(os.path.realpath(os.path.dirname(self.folder)), os.path.basename(self.folder)):
            raise TemplateLimit(
                f"{self.folder} is a link to {real_folder}: a project's template overrides "
                "must live in its own templates/ folder"
            )
        real = os.path.realpath(path)
        if os.path.commonpath([real, real_folder]) != real_folder:
            raise TemplateLimit(
                f"{path} resolves to {real}, outside {self.folder}: an override may only "
                "load templates inside the project's templates/"
            )
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
        try:
            fd = os.open(real, flags)
        except OSError as exc:
            raise TemplateLimit(f"{path}: cannot read it ({exc.strerror})") from None
        with open(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise TemplateLimit(f"{path} is not a regular file")
            data = fh.read(MAX_SOURCE + 1)
        if len(data) > MAX_SOURCE:
            raise TemplateLimit(f"{path} is larger than {MAX_SOURCE} bytes")
        try:
            source = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TemplateLimit(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        mtime = info.st_mtime_ns

        def uptodate() -> bool:
            try:
                return os.path.realpath(path) == real and os.stat(real).st_mtime_ns == mtime
            except OSError:
                return False

        return source, path, uptodate


def environment() -> jinja2.Environment:
    """The environment of the project being rendered (see templates_of)."""
    return _environment(search_path(_ROOT.get()))


@lru_cache(maxsize=8)
def _environment(folders: tuple[str, ...]) -> jinja2.Environment:
    loader: jinja2.BaseLoader
    if len(folders) == 1:
        kind, loader = jinja2.Environment, jinja2.FileSystemLoader(list(folders))
    else:  # an override folder, then the packaged templates (trusted: loaded as they are)
        kind = BoundedSandbox
        loader = jinja2.ChoiceLoader([ConfinedLoader(folders[0]), jinja2.FileSystemLoader(list(folders[1:]))])
    env = kind(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        json=encode.json_text,
        js=encode.js_literal,
        md=encode.md_cell,
        pyrepr=repr,
    )
    # Jinja's own tojson sorts keys and HTML-escapes: make any accidental use fail loudly.
    del env.filters["tojson"]
    if isinstance(env, BoundedSandbox):
        env.filters = {name: _bounded_filter(name, f) for name, f in env.filters.items()}
    return env


def render_template(template: jinja2.Template, **context: Any) -> str:
    """A template's text; from an override, at most MAX_OUTPUT characters (TemplateLimit beyond)."""
    if not isinstance(template.environment, BoundedSandbox):
        return template.render(**context)
    out: list[str] = []
    size = 0
    chunks: Any = template.generate(**context)  # a generator: closed early when it runs over
    for chunk in chunks:
        size += len(chunk)
        if size > MAX_OUTPUT:
            where = _yielding_line(chunks) or template.filename or template.name
            chunks.close()
            raise TemplateLimit(f"the template renders more than {MAX_OUTPUT} characters", where)
        out.append(chunk)
    return "".join(out)


def _yielding_line(gen: Any) -> str | None:
    """file:line of the template statement a suspended render is at (innermost include first)."""
    where = None
    while gen is not None:
        frame = getattr(gen, "gi_frame", None)
        found = frame.f_globals.get("__jinja_template__") if frame is not None else None
        if found is not None and frame is not None:
            where = f"{found.filename}:{found.get_corresponding_lineno(frame.f_lineno)}"
        gen = getattr(gen, "gi_yieldfrom", None)
    return where


def render(template: str, **context: Any) -> str:
    return render_template(environment().get_template(template), **context)
