import sys

from tensix_engine.runner import main

sys.exit(main())
