"""``python -m fmtest`` is the ``fmtest`` command line."""

import sys

from fmtest.cli import main

sys.exit(main())
