// Live pages: a page whose <main> carries data-live-marker polls /api/live and, when the ladder changed since the
// page was rendered, fetches the page again and swaps in its live parts (the elements marked data-live, by id),
// with no reload: a form being filled in stays as it is. Without JavaScript the page is the same, only still.
(function () {
  "use strict";
  var main = document.querySelector("main[data-live-marker]");
  if (!main || !window.fetch || !window.DOMParser) { return; }
  var PERIOD = 2000;
  var marker = main.getAttribute("data-live-marker");
  var busy = false;

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    var next = fresh.querySelector("main[data-live-marker]");
    if (!next) { return; }
    document.querySelectorAll("[data-live][id]").forEach(function (part) {
      var replacement = fresh.getElementById(part.id);
      if (replacement) { part.replaceWith(document.importNode(replacement, true)); }
    });
    marker = next.getAttribute("data-live-marker");
    main.setAttribute("data-live-marker", marker);
    document.body.setAttribute("data-live-updates", String(Number(document.body.getAttribute("data-live-updates") || 0) + 1));
  }

  function poll() {
    if (busy || document.hidden) { return; }
    busy = true;
    fetch("/api/live", { credentials: "same-origin", cache: "no-store" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (now) {
        if (!now || now.marker === marker) { return null; }
        return fetch(main.getAttribute("data-live-url") || window.location.pathname, {
          credentials: "same-origin", cache: "no-store", headers: { "Accept": "text/html" }
        }).then(function (response) { return response.ok ? response.text() : null; })
          .then(function (html) { if (html) { swap(html); } });
      })
      .catch(function () { /* the server is away for a moment: try again at the next tick */ })
      .then(function () { busy = false; });
  }

  document.body.setAttribute("data-live", "polling");
  window.setInterval(poll, PERIOD);
})();
