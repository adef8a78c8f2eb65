"""Data package `pasture.profiles`: the pinned host contracts, carried inside every install.

This folder holds no code (the format is in README.md). pyproject.toml maps it into the
distribution so `pasture install` works from a wheel or pipx install; pasture/resources.py finds
it through the import system.
"""
