"""``python -m app.cli``: the same command as the ``errkb`` console script."""

from app.cli import main

if __name__ == "__main__":
    main()
