import sys

from schemacite.cli import main

sys.exit(main())
