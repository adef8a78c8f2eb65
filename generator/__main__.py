"""`python -m generator`: the same entry point as the `pasture` console script."""

import sys

from .entry import main

sys.exit(main())
