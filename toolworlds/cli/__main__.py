"""`python -m toolworlds.cli ARGS`: the same as the `toolworlds` command."""

from . import main

if __name__ == "__main__":
    main()
