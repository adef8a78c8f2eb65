"""The `pasture` console script: the hook path skips click and everything else that is slow to import."""

from __future__ import annotations

import sys


def main() -> int | None:
    if sys.argv[1:3] == ["hook", "lifecycle"]:
        from .hook.lifecycle import main as hook_main

        return hook_main(sys.argv[3:])
    if sys.argv[1:3] == ["hook", "serve"]:  # until generator/hook/main.py dispatches both
        from .hook.serve import main as serve_main

        return serve_main(sys.argv[3:])
    from .cli import main as cli_main

    return cli_main()


if __name__ == "__main__":
    sys.exit(main())
