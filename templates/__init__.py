"""Data package `generator.templates`: the Jinja templates, carried inside every install.

This folder holds no code. pyproject.toml maps it into the distribution; generator/resources.py
finds it through the import system. A project's own templates/ overrides these file by file
(see generator/render/env.py).
"""
