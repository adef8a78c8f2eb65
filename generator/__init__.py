"""Pasture's adapter generator: profiles in, native lifecycle adapters out."""

# The one place the version is written (pyproject.toml reads it; generate records it in the manifest).
__version__ = "0.1.0"
