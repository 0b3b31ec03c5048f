import sys

from dixit_ai.cli import main

sys.exit(main())
