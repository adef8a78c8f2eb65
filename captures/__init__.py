"""Data package `pasture.captures`: the recorded host runs the profiles cite as evidence.

This folder holds no code. pyproject.toml maps it into the distribution beside pasture.profiles,
so a packaged profile's citations (captures/...) resolve in every install.
"""
