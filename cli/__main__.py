"""``python -m cli`` runs the `ladder` command line, as the console script does."""

from cli.app import main

main()
