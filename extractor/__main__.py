"""``python -m extractor`` runs the raisedocs command line."""

import sys

from .cli import main

sys.exit(main())
