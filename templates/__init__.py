"""Data package `pasture.templates`: the Jinja templates, carried inside every install.

This folder holds no code. pyproject.toml maps it into the distribution; pasture/resources.py
finds it through the import system. A project's own templates/ overrides these file by file
(see pasture/render/env.py).
"""
