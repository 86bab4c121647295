"""The read model: every reader of the database (the CLI, the static report, the service's pages and JSON API)
reads through this package and nothing else, so that what they show cannot drift apart.

- :mod:`ladder.views.catalog`: bot versions and their labels, tournaments, matches by id or key, authors;
- :mod:`ladder.views.leaderboard`: the one leaderboard JSON schema (docs/leaderboard-json.md);
- :mod:`ladder.views.records` and :mod:`ladder.views.figures`: the whole database as the report reads it, and
  what is derived from it (leaderboard rows, head to head, failures);
- :mod:`ladder.views.match_lists`: matches as the CLI lists and exports them;
- :mod:`ladder.views.served`: the served pages' bots, matches, submissions and failures, with their caches.

Only the store (:mod:`ladder.store`) and this package write queries (``tests/test_queries_live_in_store.py``).
"""
