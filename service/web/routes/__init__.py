"""The web app's routes: the JSON API (:mod:`service.web.routes.api`) and the pages (:mod:`service.web.routes.pages`)."""
