import sys

from .generate import main

sys.exit(main(sys.argv[1:]))
