"""Pasture's adapter generator: profiles in, native lifecycle adapters out."""

# The one place the version is written (pyproject.toml reads it; generate records it in the manifest).
__version__ = "0.1.0"


class PastureError(Exception):
    """The base of every error the tool raises on purpose: the CLI's one handler (pasture/cli)
    turns any that a command did not handle itself into one line and exit 2, never a traceback.

    It lives here, not in a module of its own, because the hook path imports this package anyway:
    a separate module would cost every event one more import."""
