"""The files a patch names: Codex's `*** Add/Update/Delete File:` / `*** Move to:` envelope and unified
diff headers (`--- a/x`, `+++ b/x`). Read from the patch's own headers, the way the host applies it."""

# header -> what the patch does to that path
HEADERS = (
    ("*** Add File: ", "add"),
    ("*** Update File: ", "update"),
    ("*** Delete File: ", "delete"),
    ("*** Move to: ", "move-to"),
    ("+++ ", "diff"),
    ("--- ", "diff"),
)
KEYS = ("patch", "patchText", "patch_text", "input", "command")  # where the hosts' patch tools carry it


def headers(text: str) -> list:
    """(action, path) for every file header of the patch, in order."""
    found = []
    for line in text.splitlines():
        for header, action in HEADERS:
            if line.startswith(header):
                path = line[len(header) :].strip()
                if action == "diff":
                    if path == "/dev/null":
                        break
                    path = path.split("\t", 1)[0]
                    if path[:2] in ("a/", "b/"):
                        path = path[2:]
                if path:
                    found.append((action, path))
                break
    return found


def text_of(tool_input: object) -> str | None:
    """The patch a file tool's input carries, or None."""
    if not isinstance(tool_input, dict):
        return None
    for key in KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and ("*** " in value or "+++ " in value):
            return value
    return None


def left_behind(text: str) -> list:
    """The files that exist once the patch is applied (not the deleted ones, nor a move's source)."""
    kept: list = []
    last = None
    for action, path in headers(text):
        if action == "delete":
            kept = [p for p in kept if p != path]
        elif action == "move-to":
            if last is not None and last in kept:
                kept.remove(last)
            kept.append(path)
        elif path not in kept:
            kept.append(path)
        last = path
    return kept
