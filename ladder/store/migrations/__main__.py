"""``python -m ladder.store.migrations new "what changes"``: write the next numbered revision after the head.

The new file is in ``versions/``, numbered one past the newest, with empty ``upgrade``/``downgrade`` to fill in
(docs/databases.md says how). Alembic's own ``alembic revision`` needs an ``alembic.ini``; this needs none.
"""

from __future__ import annotations

import sys

from ladder.store.migrations import alembic_config, head


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "new" or not argv[1].strip():
        print('usage: python -m ladder.store.migrations new "what the revision changes"', file=sys.stderr)
        return 2
    from alembic import command

    command.revision(alembic_config(), message=argv[1], rev_id=f"{int(head()) + 1:04d}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
