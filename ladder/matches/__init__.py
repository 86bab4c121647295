"""One match: seats, the failure rule, the action log (``match``), the vocabularies of a recorded match
(``statuses``), summaries of a batch (``summary``) and the sealed deals every seed comes from (``deals``)."""
