"""The web app's routes: the JSON API (:mod:`service.routes.api`) and the pages (:mod:`service.routes.pages`)."""
