"""Rendering: validated contracts in, artifact bytes out. Nothing here touches the disk."""
