"""The service's web side: the FastAPI app (:mod:`service.web.app`), its routes, pages and templates, and what a
request may do (log in, submit, pause a bot). It reads through the read model (:mod:`ladder.views`) and writes
through the store (:mod:`ladder.store`); the background side (checker, scheduler) is :mod:`service.background`.
"""
