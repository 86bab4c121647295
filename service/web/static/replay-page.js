// The served replay page (service/templates/replay.html): the report's viewer, its data fetched from the URL in
// the page's data-replay attribute (the login cookie goes along, so an author gets their own bots' stderr).
LadderReplay.fetch(document.body.getAttribute("data-replay"));
