"""The `pasture` console script: the hook path (and an unchanged `check`) skip click and everything else
that is slow to import."""

from __future__ import annotations

import sys


def main() -> int | None:
    from pasture.runtime.main import is_hook

    if is_hook(sys.argv[1:3]) and not {"-h", "--help"} & set(sys.argv[3:]):
        from pasture.runtime.main import main as hook_main

        return hook_main(sys.argv[1:], process=True)
    if "check" in sys.argv[1:4]:
        # An unchanged project is answered from a recorded digest without importing click and the
        # renderer (pasture/check/quick.py); anything else falls through to the full check.
        from pasture.check.quick import main as quick_main

        code = quick_main(sys.argv[1:])
        if code is not None:
            return code
    if sys.argv[1:2] == ["journal"]:
        # The plain listing, answered without click (pasture/journal/view.py); else click below.
        from pasture.journal.view import fast_main

        code = fast_main(sys.argv[2:])
        if code is not None:
            return code
    from pasture.cli import main as cli_main

    # One program name however it was started (console script, python -m pasture): the same help
    # text and the same completion variable (_PASTURE_COMPLETE).
    return cli_main(prog_name="pasture")


if __name__ == "__main__":
    sys.exit(main())
