"""Data package `generator.captures`: the recorded host runs the profiles cite as evidence.

This folder holds no code. pyproject.toml maps it into the distribution beside generator.profiles,
so a packaged profile's citations (captures/...) resolve in every install.
"""
