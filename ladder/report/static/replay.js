// The replay viewer: shows the frames computed by the ladder (embedded as JSON); computes nothing itself.
(function () {
  "use strict";
  var replay = JSON.parse(document.getElementById("replay-data").textContent);
  var names = JSON.parse(document.getElementById("seat-names").textContent);
  var frames = replay.frames;
  var last = Math.max(0, frames.length - 1);
  var current = 0;
  var $ = function (id) { return document.getElementById(id); };
  var board = $("board"), events = $("events"), moves = $("moves"), move = $("move");
  var jump = $("jump"), slider = $("slider"), view = $("view");

  function seatName(seat) {
    return seat === null || seat === undefined ? "-" : "seat " + seat + " (" + names[seat] + ")";
  }
  function describe(m) {
    return "seat " + m.seat + " " + (names[m.seat] || "?") + (m.stand_in ? " (random stand-in)" : "") + ": " + JSON.stringify(m.action);
  }
  // A seat's view in frame k: frame 0's observation with the changes of frames 1..k applied in order.
  var viewCache = {};
  function seatView(seat, k) {
    var cache = viewCache[seat] || (viewCache[seat] = []);
    for (var i = cache.length; i <= k; i++) {
      var change = frames[i].views[seat];
      var view = i === 0 ? {} : Object.assign({}, cache[i - 1]);
      Object.keys(change.set).forEach(function (key) { view[key] = change.set[key]; });
      change.drop.forEach(function (key) { delete view[key]; });
      cache.push(view);
    }
    return cache[k];
  }
  // The whole table in frame k: frame 0's drawing with the changed lines of frames 1..k applied in order.
  var boardCache = [];
  function boardText(k) {
    for (var i = boardCache.length; i <= k; i++) {
      var change = frames[i].board;
      var lines = i === 0 ? [] : boardCache[i - 1].slice(0, change.length);
      change.lines.forEach(function (pair) { lines[pair[0]] = pair[1]; });
      boardCache.push(lines);
    }
    return boardCache[k].join("\n");
  }
  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  function show(k) {
    if (!frames.length) { board.textContent = "nothing to show"; return; }
    current = Math.min(last, Math.max(0, k));
    var frame = frames[current];
    var chosen = view.value;
    if (chosen === "full") {
      $("board-title").textContent = "Table (everything)";
      board.textContent = boardText(current);
    } else {
      var seat = parseInt(chosen, 10);
      $("board-title").textContent = "What seat " + seat + " (" + names[seat] + ") saw: its observation";
      board.textContent = JSON.stringify(seatView(seat, current), null, 1);
    }
    move.textContent = frame.move ? "Move " + frame.move.number + " of " + last + ": " + describe(frame.move)
      : "The deal (before any move)";
    move.textContent += frame.to_move === null ? "; the match is over." : "; next to decide: " + seatName(frame.to_move) + ".";
    clear(events);
    frame.events.forEach(function (e) {
      var seen = e.seen_by === "all" ? "all" : "seats " + e.seen_by.join(", ");
      if (chosen !== "full" && e.seen_by !== "all" && e.seen_by.indexOf(parseInt(chosen, 10)) < 0) { return; }
      var item = document.createElement("li");
      item.textContent = JSON.stringify(e.event) + "  [seen by " + seen + "]";
      events.appendChild(item);
    });
    Array.prototype.forEach.call(moves.children, function (item, index) {
      item.className = index + 1 === current ? "current" : "";
    });
    jump.value = current;
    slider.value = current;
    $("prev").disabled = $("first").disabled = current === 0;
    $("next").disabled = $("last").disabled = current === last;
    document.body.setAttribute("data-frame", String(current));
  }

  frames.forEach(function (frame, index) {
    if (!frame.move) { return; }
    var item = document.createElement("li");
    var link = document.createElement("a");
    link.href = "#move-" + index;
    link.textContent = describe(frame.move);
    link.addEventListener("click", function (event) { event.preventDefault(); show(index); });
    item.appendChild(link);
    moves.appendChild(item);
  });
  $("total").textContent = String(last);
  jump.max = slider.max = String(last);
  $("first").addEventListener("click", function () { show(0); });
  $("prev").addEventListener("click", function () { show(current - 1); });
  $("next").addEventListener("click", function () { show(current + 1); });
  $("last").addEventListener("click", function () { show(last); });
  jump.addEventListener("change", function () { show(parseInt(jump.value, 10) || 0); });
  slider.addEventListener("input", function () { show(parseInt(slider.value, 10) || 0); });
  view.addEventListener("change", function () { show(current); });
  document.addEventListener("keydown", function (event) {
    if (event.target === jump) { return; }
    if (event.key === "ArrowRight") { show(current + 1); }
    else if (event.key === "ArrowLeft") { show(current - 1); }
    else if (event.key === "Home") { show(0); }
    else if (event.key === "End") { show(last); }
  });
  var start = /^#move-(\d+)$/.exec(window.location.hash);
  show(start ? parseInt(start[1], 10) : 0);
}());
