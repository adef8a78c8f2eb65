"""Pasture's adapter generator: profiles in, native lifecycle adapters out."""
