"""`ladder serve`: the ladder as a long-running service that authors submit to from their own machines.

The top layer beside the CLI (docs/serve.md): a FastAPI web app (:mod:`service.app`, its routes in
:mod:`service.routes`), the tables of authors, tokens, submissions and served bots (:mod:`ladder.store.served_tables`, in the
ladder's own database), the background checker of submissions (:mod:`service.background.checker`) and the continuous
scheduler that plays matches on the tournaments' executors (:mod:`service.background.scheduler`, its choices in
:mod:`service.background.planner`). :mod:`service.server` puts them together for ``ladder serve``.
"""
