"""Options every `pasture` command shares (CLI convention: the project is the current folder or --root)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

if TYPE_CHECKING:
    from pasture.profile.contracts import Contract

import click

EXIT_OK, EXIT_DIFF, EXIT_ERROR = 0, 1, 2


def root_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--root",
        "root",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="project root holding profiles/, templates/, generated/, captures/ (default: current directory)",
    )(func)


def project_root(ctx: click.Context, root: Path | None) -> Path:
    """The command's --root, else the group's --root, else the current directory."""
    obj = ctx.find_root().obj
    group_root = obj.get("root") if isinstance(obj, dict) else None
    return Path(root or group_root or Path.cwd()).resolve()


def load_or_exit(
    root: Path,
    as_json: bool = False,
    only: Iterable[str] | None = None,
    trailer: str = "nothing was written.",
    cited: set[str] | None = None,
) -> list[Contract]:
    """Every validated contract, or every profile problem printed and exit 2 (``cited`` collects the
    repository paths citations resolved to)."""
    from pasture.hosts import HOSTS
    from pasture.profile.diagnostics import ProfileErrors
    from pasture.profile.loader import load_project

    try:
        return load_project(root, only, cited, hosts=HOSTS)
    except ProfileErrors as exc:
        if as_json:
            click.echo(json.dumps({"ok": False, "problems": [p.as_json() for p in exc.problems]}, indent=2))
        else:
            for problem in exc.problems:
                click.echo(problem.render(), err=True)
            click.echo(f"{len(exc.problems)} problem(s); {trailer}", err=True)
        sys.exit(EXIT_ERROR)
