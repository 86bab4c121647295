"""``python -m tests.engine.playthroughs --regenerate``: record the golden playthroughs again, on purpose.

Run it only after a change meant to alter play (a rule fixed, an observation field added), then read the
diff (``git diff --stat tests/engine/playthroughs``) before committing it: see docs/playthroughs.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tests.engine.playthroughs import CASES, HERE, regenerate


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.engine.playthroughs", description=__doc__.splitlines()[0])
    parser.add_argument("--regenerate", action="store_true", help="rewrite every recorded playthrough")
    parser.add_argument(
        "--into", type=Path, default=HERE, metavar="FOLDER", help="write them there instead (to compare by hand)"
    )
    arguments = parser.parse_args()
    if not arguments.regenerate:
        parser.error(f"nothing to do: pass --regenerate to rewrite the {len(CASES)} recorded playthroughs")
    for path in regenerate(arguments.into):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
