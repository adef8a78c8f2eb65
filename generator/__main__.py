"""`python -m generator`: the same entry point as the `pasture` console script."""

import sys

from generator.entry import main

sys.exit(main())
