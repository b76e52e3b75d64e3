"""Entry point of the frozen app: the same `omnivoice-desktop` command as the installed one."""

import sys

from studio.cli import main

if __name__ == "__main__":
    sys.exit(main())
