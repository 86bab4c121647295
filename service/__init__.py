"""`ladder serve`: the ladder as a long-running service that authors submit to from their own machines.

The top layer beside the CLI (docs/serve.md): the web side (:mod:`service.web`: the FastAPI app, its routes,
pages and templates), the author's HTTP client (:mod:`service.client`, which imports nothing of the web side), the
background checker of submissions (:mod:`service.background.checker`) and the continuous
scheduler that plays matches on the tournaments' executors (:mod:`service.background.scheduler`, its choices in
:mod:`service.background.planner`). :mod:`service.server` puts them together for ``ladder serve``.
"""
