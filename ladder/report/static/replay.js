// The ladder's replay viewer: one static file, no build step, no network.
// It draws a match from the frames the ladder computed with the engine (ladder/report/replay.py) and
// computes nothing of the game itself. A match's data is gzip'd JSON: a static report's per-match script
// calls LadderReplay.load(base64); a server can call LadderReplay.fetch(url). See docs/architecture.md.
(function () {
  "use strict";

  // ---- small helpers -----------------------------------------------------------------------------------
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === null || value === undefined || value === false) { return; }
      if (key === "text") { node.textContent = String(value); }
      else if (key === "cls") { node.className = value; }
      else { node.setAttribute(key, String(value)); }
    });
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) { return; }
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }
  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }
  function $(id) { return document.getElementById(id); }
  function fmtSeconds(s) {
    if (s === null || s === undefined) { return "-"; }
    if (s >= 1) { return s.toFixed(2) + " s"; }
    return s >= 0.001 ? (s * 1000).toFixed(s >= 0.01 ? 0 : 1) + " ms" : (s * 1e6).toFixed(0) + " µs";
  }
  function ordinal(n) {
    if (n === null || n === undefined) { return "-"; }
    var s = ["th", "st", "nd", "rd"], v = n % 100;
    return n + (s[(v - 20) % 10] || s[v] || s[0]);
  }
  function cardCount(n) { return n + (n === 1 ? " card" : " cards"); }

  // ---- decoding -------------------------------------------------------------------------------------------
  function inflate(bytes) {
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser cannot decompress the replay (DecompressionStream is missing): use a current Chrome, Firefox or Safari"));
    }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }
  function fromBase64(text) {
    var raw = atob(text), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { bytes[i] = raw.charCodeAt(i); }
    return bytes;
  }

  // ---- the frames: each stored as the change from the previous one ------------------------------------------
  function applyChange(before, change) {
    var after = Object.assign({}, before);
    if (change) {
      Object.keys(change.set || {}).forEach(function (key) { after[key] = change.set[key]; });
      (change.drop || []).forEach(function (key) { delete after[key]; });
    }
    return after;
  }
  function Frames(doc) {
    this.doc = doc;
    this.frames = doc.frames;
    this.n = doc.match.players;
    this.pub = []; this.hidden = []; this.own = [];
    for (var s = 0; s < this.n; s++) { this.own.push([]); }
  }
  Frames.prototype.upTo = function (k) {
    for (var i = this.pub.length; i <= k; i++) {
      var f = this.frames[i];
      this.pub.push(applyChange(i ? this.pub[i - 1] : {}, f.pub));
      this.hidden.push(applyChange(i ? this.hidden[i - 1] : {}, f.hidden));
      for (var s = 0; s < this.n; s++) {
        this.own[s].push(applyChange(i ? this.own[s][i - 1] : {}, f.own ? f.own[s] : null));
      }
    }
  };
  // Seat s's observation in frame k: exactly what the engine sent a bot in that seat (less its events).
  Frames.prototype.view = function (s, k) {
    this.upTo(k);
    return Object.assign({}, this.pub[k], this.own[s][k]);
  };
  Frames.prototype.hiddenAt = function (k) { this.upTo(k); return this.hidden[k]; };
  // The action chosen at frame k (it leads to frame k + 1), or null.
  Frames.prototype.chosen = function (k) {
    var f = this.frames[k];
    return f && f.offer && f.chose !== null && f.chose !== undefined ? f.offer[f.chose] : null;
  };

  // ---- drawing cards --------------------------------------------------------------------------------------------
  var ELEVENSES_NAMES = ["", "Tea Trolley", "Tea", "Milk", "Sugar", "Cups & Saucers", "Fine China", "Biscuits",
    "Sandwiches", "Cakes", "Servants", "Elevenses"];
  function card(cls, label, dataCard, title, small) {
    return el("span", { cls: "card " + cls, "data-card": dataCard, title: title || null }, [
      el("span", { cls: "card-n", text: label }), small ? el("span", { cls: "card-s", text: small }) : null]);
  }
  function back(cls, title) { return el("span", { cls: "card back " + (cls || ""), title: title || "face down" }); }
  function slot(title) { return el("span", { cls: "card slot", title: title || "empty" }); }
  function erCard(c) { return card("er er-" + c[0], String(c[1]), c[0] + " " + c[1], c[0] + " " + c[1]); }
  function teaCard(c, faceDown) {  // Elevenses: [number, set]
    return card("tea set-" + c[1] + (faceDown ? " seen-down" : ""), String(c[0]), c[0] + "/" + c[1],
      ELEVENSES_NAMES[c[0]] + " of set " + c[1] + (faceDown ? " (face down)" : ""), ELEVENSES_NAMES[c[0]]);
  }
  function efoCard(n, faceDown) {
    return card("tea set-0" + (faceDown ? " seen-down" : ""), String(n), String(n),
      ELEVENSES_NAMES[n] + (faceDown ? " (face down; seen before)" : ""), ELEVENSES_NAMES[n]);
  }
  function ballCard(n, title) { return card("ball", String(n), String(n), title || "ball card " + n); }
  function zone(name, title, children, cls) {
    return el("div", { cls: "zone " + (cls || ""), "data-zone": name }, [title ? el("div", { cls: "zone-title", text: title }) : null,
      el("div", { cls: "zone-cards" }, children)]);
  }
  function seatLabel(ctx, s) {
    var seat = ctx.doc.seats[s];
    return "seat " + s + (seat ? " · " + seat.name : "");
  }

  // ---- actions and events as words and cards ---------------------------------------------------------------------
  function cardOf(game, key, value) {
    if (game === "elevenses" && Array.isArray(value) && value.length === 2 && typeof value[0] === "number") { return teaCard(value); }
    if (game === "elevenses-for-one" && (key === "card") && typeof value === "number") { return efoCard(value); }
    return null;
  }
  function valueNodes(ctx, key, value) {
    var game = ctx.doc.match.game, one = cardOf(game, key, value);
    if (one) { return [one]; }
    if (Array.isArray(value) && value.length && value.every(function (v) { return cardOf(game, key, v); })) {
      return value.map(function (v) { return cardOf(game, key, v); });
    }
    if (game === "elevenses-for-one" && key === "cards" && Array.isArray(value)) { return value.map(function (v) { return efoCard(v); }); }
    if (game === "elfer-raus" && Array.isArray(value) && value.length && Array.isArray(value[0]) && typeof value[0][0] === "string") {
      return value.map(erCard);
    }
    if ((key === "seat" || key === "target" || key === "owner" || key === "taker") && typeof value === "number") {
      return [el("span", { cls: "who", text: seatLabel(ctx, value) })];
    }
    if (Array.isArray(value)) { return [value.join(" ")]; }
    if (value !== null && typeof value === "object") { return [JSON.stringify(value)]; }
    return [String(value)];
  }
  function describe(ctx, thing, skip) {
    // An action or an event: its kind in bold, then its fields (cards drawn as cards).
    var game = ctx.doc.match.game, parts = [];
    var kind = thing.type || thing.event || "";
    parts.push(el("b", { text: String(kind).replace(/_/g, " ") }));
    if (game === "elfer-raus" && thing.colour !== undefined && thing.number !== undefined) {
      parts.push(" ", erCard([thing.colour, thing.number]));
    }
    if (game === "bowling-solitaire" && thing.pile !== undefined) {
      parts.push(" pile " + (thing.pile + 1) + " at ", el("span", { cls: "pins-label", text: (thing.pins || []).join(" ") }));
    }
    Object.keys(thing).forEach(function (key) {
      if (key === "type" || key === "event" || (skip && skip.indexOf(key) >= 0)) { return; }
      if (game === "elfer-raus" && (key === "colour" || key === "number")) { return; }
      if (game === "bowling-solitaire" && (key === "pile" || key === "pins")) { return; }
      var value = thing[key];
      if (value === null || value === undefined) { return; }
      parts.push(key === "seat" ? " by " : " " + key.replace(/_/g, " ") + " ");
      valueNodes(ctx, key, value).forEach(function (node) { parts.push(node); });
    });
    return parts;
  }

  // ---- one renderer per game: (ctx) -> a DOM node. ctx.viewer is "full" or a seat number --------------------------------
  var renderers = {};

  renderers["elfer-raus"] = function (ctx) {
    var n = ctx.n, v = ctx.look(ctx.viewer === "full" ? 0 : ctx.viewer), hidden = ctx.hidden;
    var colours = ["red", "yellow", "green", "blue"];
    var rows = colours.filter(function (c) { return c in (v.rows || {}); }).map(function (colour) {
      var span = v.rows[colour], cells = [];
      for (var x = 1; x <= 20; x++) {
        var on = span && x >= span[0] && x <= span[1];
        cells.push(on ? erCard([colour, x]) : el("span", { cls: "card slot er-slot" + (x === 11 ? " eleven" : ""), text: x === 11 ? "11" : "" }));
      }
      return el("div", { cls: "er-row", "data-zone": "row-" + colour }, [el("span", { cls: "row-name er-" + colour, text: colour }),
        el("span", { cls: "row-cards" }, cells)]);
    });
    var table = el("div", { cls: "er-rows" }, rows);
    var pack = hidden.pack && ctx.viewer === "full"
      ? zone("pack", "the pack: " + cardCount(v.pack_size) + " (face down; shown in the full view)", hidden.pack.map(erCard), "pack")
      : zone("pack", "the pack: " + cardCount(v.pack_size), v.pack_size ? [back("stack", cardCount(v.pack_size))] : [], "pack");
    var hands = [];
    for (var s = 0; s < n; s++) {
      var seesIt = ctx.viewer === "full" || ctx.viewer === s;
      var hand = seesIt ? ctx.look(s).hand : null, size = v.hand_sizes[s];
      var cards = hand ? hand.map(erCard) : Array.apply(null, Array(size)).map(function () { return back("er-back"); });
      var drawn = v.turn && v.turn.awaiting_drawn_card && v.current_player === s;
      var title = seatLabel(ctx, s) + ": " + cardCount(size) + ", total " + v.totals[s] + " penalty points" +
        (s === v.dealer ? " · dealer" : "") + (drawn ? " · may play the card just drawn" : "");
      hands.push(zone("hand-" + s, title, cards, "hand" + (v.current_player === s ? " to-move" : "")));
    }
    var turn = v.turn || {};
    var info = el("p", { cls: "facts" }, ["round " + v.round + " of " + v.rounds + " · starter " + seatLabel(ctx, v.starter) +
      " · this turn: " + turn.played + " laid, " + turn.drawn + " drawn" +
      (turn.drawn_card ? " · drawn card: " : ""), turn.drawn_card ? erCard(turn.drawn_card) : null,
      ctx.viewer === "full" && hidden.drawn ? el("span", {}, [" · the card just drawn: ", erCard(hidden.drawn)]) : null]);
    var scores = el("p", { cls: "facts", "data-zone": "scores" }, ["penalty totals: " + v.totals.map(function (t, s) {
      return seatLabel(ctx, s) + " " + t; }).join(" · ")]);
    return el("div", { cls: "game er" }, [info, table, pack].concat(hands, [scores]));
  };

  function elevensesSpread(ctx, v, s) {
    var spread = v.spreads[s], up = {}, cells = {};
    (spread.face_up || []).forEach(function (c) { up[c[0]] = c; });
    var own = ctx.viewer === s && spread.face_down_cards ? spread.face_down_cards : null;
    var full = ctx.viewer === "full" && ctx.hidden.face_down ? ctx.hidden.face_down[s] : null;
    for (var p = 1; p <= 10; p++) {
      var downBack = spread.face_down[p - 1], seen = (full || own) ? (full || own)[p - 1] : null;
      var node = up[p] ? teaCard(up[p]) : (seen ? teaCard(seen, true) : (downBack !== null ? back("set-" + downBack, "face down, set " + downBack) : slot("place " + p)));
      node.setAttribute("data-place", String(p));
      cells[p] = node;
    }
    return el("div", { cls: "spread", "data-zone": "spread-" + s }, [
      el("div", { cls: "sp-left" }, [cells[1]]),
      el("div", { cls: "sp-grid" }, [2, 3, 4, 5, 6, 7, 8, 9].map(function (p) { return cells[p]; })),
      el("div", { cls: "sp-right" }, [cells[10]])]);
  }
  renderers.elevenses = function (ctx) {
    var n = ctx.n, v = ctx.look(ctx.viewer === "full" ? 0 : ctx.viewer), hidden = ctx.hidden, seats = [];
    for (var s = 0; s < n; s++) {
      var kitchen = v.kitchens[s], cards;
      if (ctx.viewer === "full" && hidden.kitchens) { cards = hidden.kitchens[s].map(function (c) { return teaCard(c); }); }
      else if (kitchen.cards) { cards = kitchen.cards.map(function (c) { return teaCard(c); }); }
      else { cards = kitchen.backs.map(function (b) { return back("set-" + b, "a card of set " + b); }); }
      var cubes = [];
      for (var i = 0; i < v.cubes[s]; i++) { cubes.push(el("span", { cls: "cube", title: "sugar cube" })); }
      var guest = v.guests && v.guests[s] !== null && v.guests[s] !== undefined ? " · guest " + v.guests[s] : "";
      seats.push(el("div", { cls: "seat-panel" + (v.current_player === s ? " to-move" : ""), "data-seat": s }, [
        el("div", { cls: "seat-head" }, [el("b", { text: seatLabel(ctx, s) }),
          s === v.server ? el("span", { cls: "server-card", title: "the server card: this seat serves this round", text: "☕ server" }) : null,
          el("span", { cls: "value", text: " value " + v.values[s] + guest }),
          el("span", { cls: "cubes", "data-zone": "cubes-" + s, "data-count": v.cubes[s], title: v.cubes[s] + " sugar cubes" }, cubes)]),
        elevensesSpread(ctx, v, s),
        zone("kitchen-" + s, "kitchen (" + kitchen.backs.length + ")", cards, "kitchen")]));
    }
    var phase = v.phase || {};
    var facts = el("p", { cls: "facts" }, ["round " + v.round + " · turn " + v.turn + " of at most " + v.turn_cap +
      " · target " + v.target_cubes + " cubes" + (v.bowl !== null && v.bowl !== undefined ? " · bowl " + v.bowl : "") +
      " · " + String(phase.kind || "").replace(/_/g, " ") + (v.player !== null && v.player !== undefined ? " (turn of " + seatLabel(ctx, v.player) + ")" : ""),
      v.centre ? el("span", {}, [" · centre: ", teaCard(v.centre)]) : null,
      ctx.viewer === "full" && hidden.transit ? el("span", {}, [" · drawn by Sandwiches: ", teaCard(hidden.transit)]) : null]);
    return el("div", { cls: "game elevenses" }, [facts, el("div", { cls: "es-seats" }, seats)]);
  };

  function clock(minutes, start) {
    // Eleven o'clock is the top; the minute hand stands `minutes` before it.
    var ns = "http://www.w3.org/2000/svg", svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 100 100"); svg.setAttribute("class", "clock"); svg.setAttribute("data-minutes", String(minutes));
    function add(tag, attrs) { var node = document.createElementNS(ns, tag); Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); }); svg.appendChild(node); return node; }
    add("circle", { cx: 50, cy: 50, r: 46, fill: "#fffdf4", stroke: "#444", "stroke-width": 3 });
    for (var t = 0; t < 12; t++) {
      var a = t * Math.PI / 6;
      add("line", { x1: 50 + 38 * Math.sin(a), y1: 50 - 38 * Math.cos(a), x2: 50 + 43 * Math.sin(a), y2: 50 - 43 * Math.cos(a), stroke: "#444", "stroke-width": 2 });
    }
    var left = Math.max(0, Math.min(60, minutes)), m = (60 - left) % 60, h = left > 0 ? 10 + m / 60 : 11;
    var ma = m * Math.PI / 30, ha = h * Math.PI / 6;
    add("line", { x1: 50, y1: 50, x2: 50 + 26 * Math.sin(ha), y2: 50 - 26 * Math.cos(ha), stroke: "#222", "stroke-width": 5, "stroke-linecap": "round" });
    add("line", { x1: 50, y1: 50, x2: 50 + 38 * Math.sin(ma), y2: 50 - 38 * Math.cos(ma), stroke: "#b03020", "stroke-width": 3, "stroke-linecap": "round" });
    var label = add("text", { x: 50, y: 72, "text-anchor": "middle", "font-size": 11, fill: "#333" });
    label.textContent = left + " min";
    return svg;
  }
  renderers["elevenses-for-one"] = function (ctx) {
    var v = ctx.look(0);
    var pantry = (v.pantry || []).map(function (p, i) {
      var node = efoCard(p.card, !p.face_up);
      if (i === v.current) { node.className += " current"; }
      node.setAttribute("data-index", String(i));
      return node;
    });
    var trolley = (v.trolley || []).map(function (c) { return efoCard(c); });
    var discards = (v.discards || []).map(function (c) { return efoCard(c); });
    var facts = el("p", { cls: "facts", "data-zone": "scores" }, ["step: " + String(v.step).replace(/_/g, " ") +
      " · score " + v.score + " (top of the trolley " + v.top + " + " + v.minutes + " minutes left)" +
      " · discards " + v.discards_made + " made, " + v.discards_left + " left · shuffles " + v.shuffles +
      (v.effect ? " · effect of " + ELEVENSES_NAMES[v.effect.card] : "") + (v.won ? " · won" : "")]);
    return el("div", { cls: "game efo" }, [facts, el("div", { cls: "efo-top" }, [
      el("div", { cls: "zone clock-zone", "data-zone": "clock" }, [el("div", { cls: "zone-title", text: "the clock" }), clock(v.minutes, v.start_minutes)]),
      zone("trolley", "the trolley (" + trolley.length + ")", trolley, "trolley")]),
      zone("pantry", "the pantry (" + pantry.length + "; dimmed: face down, seen before)", pantry, "pantry"),
      zone("discards", "discards", discards, "discards")]);
  };

  var PIN_ROWS = [["A", "B", "C", "D"], ["E", "F", "G"], ["H", "I"], ["J"]];
  renderers["bowling-solitaire"] = function (ctx) {
    var v = ctx.look(0), hidden = ctx.hidden;
    var chosen = ctx.chosen && ctx.chosen.type === "bowl" ? ctx.chosen.pins : [];
    var pins = el("div", { cls: "pins", "data-zone": "pins" }, PIN_ROWS.map(function (row) {
      return el("div", { cls: "pin-row" }, row.map(function (name) {
        var up = v.pins && name in v.pins, number = up ? v.pins[name] : (v.pins_down || {})[name];
        return el("span", { cls: "pin" + (up ? " up" : " down") + (chosen.indexOf(name) >= 0 ? " aimed" : ""),
          "data-pin": name, "data-card": up ? String(number) : null, title: "pin " + name + (up ? " standing" : " knocked down") },
          [el("span", { cls: "pin-n", text: number === undefined ? "" : String(number) }), el("span", { cls: "pin-name", text: name })]);
      }));
    }));
    var piles = [0, 1, 2].map(function (i) {
      var top = v.ball_cards[i], size = v.pile_sizes[i], cards = [];
      if (ctx.viewer === "full" && hidden.piles) {
        hidden.piles[i].forEach(function (c, j) {
          var node = ballCard(c, j === hidden.piles[i].length - 1 ? "face up" : "face down (full view)");
          if (j < hidden.piles[i].length - 1) { node.className += " seen-down"; }
          cards.push(node);
        });
      } else {
        for (var j = 0; j < size - 1; j++) { cards.push(back("ball-back")); }
        if (top !== null && top !== undefined) { cards.push(ballCard(top, "face up")); }
      }
      return zone("pile-" + i, "pile " + (i + 1) + " (" + size + ")", cards, "pile");
    });
    var sheet = el("table", { cls: "score-sheet", "data-zone": "score-sheet" }, [
      el("tr", {}, [el("th", { text: "frame" })].concat(v.score_sheet.map(function (_, f) { return el("th", { cls: f + 1 === v.frame ? "now" : "", text: String(f + 1) }); }))),
      el("tr", {}, [el("th", { text: "balls" })].concat(v.score_sheet.map(function (_, f) {
        var b = (v.balls || []).slice(2 * f, 2 * f + 2);
        return el("td", { text: b.join(" ") });
      }))),
      el("tr", {}, [el("th", { text: "total" })].concat(v.score_sheet.map(function (t) { return el("td", { cls: "total", text: t === null ? "" : String(t) }); })))]);
    var total = v.score_sheet.filter(function (t) { return t !== null; }).pop();
    var facts = el("p", { cls: "facts", "data-zone": "scores" }, ["frame " + v.frame + (v.bonus_rack ? " (bonus rack " + v.bonus_rack + ")" : "") +
      " · ball " + v.ball + " · score " + (total === undefined ? 0 : total) + (v.can_stop ? " · may stop" : "")]);
    var out = zone("out", "out of play", (v.out_of_play || []).map(function (c) { return ballCard(c); }), "out");
    return el("div", { cls: "game bowling" }, [facts, el("div", { cls: "lane" }, [pins, el("div", { cls: "piles" }, piles)]), sheet, out]);
  };

  function genericRenderer(ctx) {
    return el("pre", { cls: "generic", text: JSON.stringify(ctx.look(ctx.viewer === "full" ? 0 : ctx.viewer), null, 1) });
  }

  // ---- the viewer ----------------------------------------------------------------------------------------------------
  function Viewer(root, doc) {
    this.root = root; this.doc = doc; this.data = new Frames(doc);
    this.last = Math.max(0, doc.frames.length - 1);
    this.current = 0; this.viewer = "full"; this.timer = null;
    this.decisions = doc.seats.map(function () { return 0; });
    var self = this;
    doc.frames.forEach(function (f) { if (f.offer && f.to_move !== null) { self.decisions[f.to_move] += 1; } });
    this.failureFrames = [];
    doc.frames.forEach(function (f, k) { if (f.move && f.move.stand_in) { self.failureFrames.push(k); } });
    doc.seats.forEach(function (s) {
      if (s.failure && s.at_action !== null && s.at_action !== undefined) { self.failureFrames.push(Math.min(self.last, s.at_action)); }
    });
    this.failureFrames = this.failureFrames.filter(function (k, i, a) { return a.indexOf(k) === i; }).sort(function (a, b) { return a - b; });
    this.build();
  }
  Viewer.prototype.build = function () {
    var self = this, doc = this.doc, m = doc.match;
    clear(this.root);
    var options = [el("option", { value: "full", text: "full table (every card)" })].concat(doc.seats.map(function (s) {
      return el("option", { value: String(s.seat), text: "seat " + s.seat + ": " + s.name + "'s own view" });
    }));
    this.select = el("select", { id: "view", title: "whose view (v)" }, options);
    this.jump = el("input", { type: "number", id: "jump", min: 0, max: this.last, value: 0 });
    this.slider = el("input", { type: "range", id: "slider", min: 0, max: this.last, value: 0 });
    this.speed = el("select", { id: "speed", title: "play speed" }, [["1000", "1 step/s"], ["400", "2.5 steps/s"], ["150", "7 steps/s"], ["50", "20 steps/s"]].map(function (p) {
      return el("option", { value: p[0], text: p[1] }); }));
    this.speed.value = "400";
    var button = function (id, text, title) { return el("button", { type: "button", id: id, title: title, text: text }); };
    var controls = el("div", { cls: "controls" }, [button("first", "« first", "the deal (Home)"), button("prev", "‹ back", "back one step (←)"),
      button("play", "▶ play", "play / pause (space)"), button("next", "next ›", "forward one step (→)"), button("last", "last »", "the end (End)"),
      el("label", {}, ["step ", this.jump, " of ", el("span", { id: "total", text: String(this.last) })]), this.slider, this.speed,
      el("label", {}, ["view ", this.select]),
      button("failure", "⚠ next failure", this.failureFrames.length ? "jump to the next step where a seat failed (f)" : "no seat failed in this match")]);
    this.moveLine = el("p", { id: "move", cls: "move" });
    this.board = el("div", { id: "board", cls: "board" });
    this.decision = el("div", { id: "decision", cls: "decision" });
    this.events = el("ol", { id: "events", cls: "events" });
    this.stderr = el("div", { id: "stderr" });
    var problem = doc.problem ? el("p", { cls: "fail", id: "replay-problem", text: doc.problem }) : null;
    var status = m.status !== "played" ? el("p", { cls: "note", text: "This match was not played (" + m.status + (m.error ? ": " + m.error : "") + "): the viewer shows its deal." }) : null;
    this.root.appendChild(el("div", {}, [problem, status, controls, this.moveLine,
      el("div", { cls: "panes" }, [el("div", {}, [el("h3", { id: "board-title", text: "Table" }), this.board]),
        el("div", {}, [el("h3", { text: "Decision" }), this.decision, el("h3", { text: "Events of this step" }), this.events,
          el("h3", { text: "The bots' stderr in this match" }), this.stderr])])]));
    $("first").addEventListener("click", function () { self.show(0); });
    $("prev").addEventListener("click", function () { self.show(self.current - 1); });
    $("next").addEventListener("click", function () { self.show(self.current + 1); });
    $("last").addEventListener("click", function () { self.show(self.last); });
    $("play").addEventListener("click", function () { self.toggle(); });
    $("failure").addEventListener("click", function () { self.nextFailure(); });
    $("failure").disabled = !this.failureFrames.length;
    this.jump.addEventListener("change", function () { self.show(parseInt(self.jump.value, 10) || 0); });
    this.slider.addEventListener("input", function () { self.show(parseInt(self.slider.value, 10) || 0); });
    this.select.addEventListener("change", function () { self.viewer = self.select.value === "full" ? "full" : parseInt(self.select.value, 10); self.show(self.current); });
    this.speed.addEventListener("change", function () { if (self.timer) { self.toggle(); self.toggle(); } });
    document.addEventListener("keydown", function (event) {
      if (event.target === self.jump || event.target.tagName === "SELECT" || event.ctrlKey || event.metaKey || event.altKey) { return; }
      var keys = { ArrowRight: function () { self.show(self.current + 1); }, ArrowLeft: function () { self.show(self.current - 1); },
        Home: function () { self.show(0); }, End: function () { self.show(self.last); }, " ": function () { self.toggle(); },
        f: function () { self.nextFailure(); } };
      if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
    });
    window.addEventListener("hashchange", function () { self.fromHash(); });
    this.renderStderr();
  };
  Viewer.prototype.fromHash = function () {
    var params = {};
    window.location.hash.replace(/^#/, "").split("&").forEach(function (pair) {
      var bits = pair.split("="); if (bits[0]) { params[bits[0]] = decodeURIComponent(bits[1] || ""); }
    });
    if (params.view !== undefined) {
      this.viewer = params.view === "full" ? "full" : parseInt(params.view, 10);
      if (this.viewer !== "full" && !(this.viewer >= 0 && this.viewer < this.doc.seats.length)) { this.viewer = "full"; }
      this.select.value = String(this.viewer);
    }
    var step = /^\d+$/.test(params.step || "") ? parseInt(params.step, 10) : /^move-(\d+)$/.test(window.location.hash.slice(1)) ? parseInt(window.location.hash.slice(6), 10) : this.current;
    this.show(step, true);
  };
  Viewer.prototype.toggle = function () {
    var self = this;
    if (this.timer) { clearInterval(this.timer); this.timer = null; $("play").textContent = "▶ play"; return; }
    if (this.current >= this.last) { this.show(0); }
    $("play").textContent = "⏸ pause";
    this.timer = setInterval(function () {
      if (self.current >= self.last) { self.toggle(); return; }
      self.show(self.current + 1);
    }, parseInt(this.speed.value, 10));
  };
  Viewer.prototype.nextFailure = function () {
    var self = this, next = this.failureFrames.filter(function (k) { return k > self.current; })[0];
    if (next === undefined) { next = this.failureFrames[0]; }
    if (next !== undefined) { this.show(next); }
  };
  Viewer.prototype.ctx = function (k) {
    var data = this.data, viewer = this.viewer;
    return { doc: this.doc, n: data.n, viewer: viewer, frame: this.doc.frames[k], hidden: viewer === "full" ? data.hiddenAt(k) : {},
      chosen: data.chosen(k), look: function (s) { return data.view(s, k); } };
  };
  Viewer.prototype.show = function (k, fromHash) {
    var doc = this.doc;
    if (!doc.frames.length) { this.board.textContent = "nothing to show"; return; }
    this.current = Math.min(this.last, Math.max(0, isNaN(k) ? 0 : k));
    var k2 = this.current, frame = doc.frames[k2], ctx = this.ctx(k2);
    var render = renderers[doc.match.game] || genericRenderer;
    clear(this.board);
    this.board.appendChild(render(ctx));
    if (this.board.querySelector(".seen-down")) {
      this.board.appendChild(el("p", { cls: "legend", text: "Dimmed, dashed cards lie face down: drawn face up because " +
        (this.viewer === "full" ? "this is the full view." : "this seat has seen them.") }));
    }
    $("board-title").textContent = this.viewer === "full" ? "The table, every card face up" :
      "What seat " + this.viewer + " (" + doc.seats[this.viewer].name + ") saw: the others' hidden cards face down";
    this.renderMove(k2, frame);
    this.renderDecision(k2, frame, ctx);
    this.renderEvents(frame, ctx);
    this.jump.value = String(k2); this.slider.value = String(k2);
    $("prev").disabled = $("first").disabled = k2 === 0;
    $("next").disabled = $("last").disabled = k2 === this.last;
    document.body.setAttribute("data-frame", String(k2));
    document.body.setAttribute("data-viewer", String(this.viewer));
    var hash = "#step=" + k2 + (this.viewer === "full" ? "" : "&view=" + this.viewer);
    if (!fromHash && window.location.hash !== hash && window.history && window.history.replaceState) {
      try { window.history.replaceState(null, "", hash); } catch (e) { /* file:// in some browsers: the link still works */ }
    }
  };
  Viewer.prototype.renderMove = function (k, frame) {
    clear(this.moveLine);
    var ctx = this.ctx(k);
    if (!frame.move) { this.moveLine.appendChild(document.createTextNode("The deal (before any move)")); }
    else {
      var action = this.data.chosen(k - 1), seat = frame.move.seat;
      this.moveLine.appendChild(el("span", {}, ["Step " + frame.move.number + " of " + this.last + ": " + seatLabel(ctx, seat) +
        (frame.move.stand_in ? " (its random stand-in, after the bot failed)" : "") + " chose "].concat(action ? describe(ctx, action) : ["?"])));
    }
    this.moveLine.appendChild(document.createTextNode(frame.to_move === null || frame.to_move === undefined ? "; the match is over." : "; next to decide: " + seatLabel(ctx, frame.to_move) + "."));
  };
  Viewer.prototype.renderDecision = function (k, frame, ctx) {
    clear(this.decision);
    if (!frame.offer) { this.decision.appendChild(el("p", { cls: "empty", text: "No decision here: the match is over." })); return; }
    var seat = frame.to_move, info = this.doc.seats[seat] || {}, self = this;
    var think = info.think, count = this.decisions[seat] || 0;
    this.decision.appendChild(el("p", {}, [el("b", { text: seatLabel(ctx, seat) }), " is offered " + frame.offer.length + " legal action" + (frame.offer.length === 1 ? "" : "s") +
      "; the chosen one is highlighted" + (frame.chose === null || frame.chose === undefined ? " (none: the log ends here)" : "") + "."]));
    var list = el("ol", { cls: "offer", id: "offer" }, frame.offer.map(function (action, i) {
      return el("li", { cls: i === frame.chose ? "chosen" : "", "data-index": i }, describe(ctx, action));
    }));
    this.decision.appendChild(list);
    var here = frame.think_us !== undefined ? el("b", { id: "think-here", text: "Thought " + fmtSeconds(frame.think_us / 1e6) + " over this decision. " }) : null;
    this.decision.appendChild(el("p", { cls: "note", id: "think" }, [here, "In the whole match " + info.name + " thought " + fmtSeconds(think) + " over " + count +
      " decisions" + (count && think !== null && think !== undefined ? " (" + fmtSeconds(think / count) + " a decision on average)" : "") +
      (frame.think_us === undefined && frame.chose !== undefined && frame.chose !== null ? "; this match did not record each move's time" : "") + "."]));
    var chosen = list.querySelector("li.chosen");
    if (chosen && chosen.scrollIntoView && list.scrollHeight > list.clientHeight) { list.scrollTop = chosen.offsetTop - list.offsetTop - 40; }
    void self;
  };
  Viewer.prototype.renderEvents = function (frame, ctx) {
    var self = this;
    clear(this.events);
    (frame.events || []).forEach(function (pair) {
      var seen = pair[0];
      if (self.viewer !== "full" && seen !== null && seen.indexOf(self.viewer) < 0) { return; }
      var who = seen === null ? "" : " (seen by " + seen.map(function (s) { return "seat " + s; }).join(", ") + ")";
      self.events.appendChild(el("li", {}, describe(ctx, pair[1]).concat([el("span", { cls: "note", text: who })])));
    });
    if (!this.events.firstChild) { this.events.appendChild(el("li", { cls: "empty", text: "none" })); }
  };
  Viewer.prototype.renderStderr = function () {
    var self = this;
    clear(this.stderr);
    this.doc.seats.forEach(function (s) {
      var lines = (s.stderr || "").replace(/\s+$/, "");
      var head = "seat " + s.seat + " · " + s.name + (s.failure ? ": failed (" + s.failure + (s.at_action !== null && s.at_action !== undefined ? ", after " + s.at_action + " moves" : "") + ")" + (s.detail ? ": " + s.detail : "") : "");
      // hidden: the seat's stderr and failure detail are its author's and the operator's only (docs/serve.md)
      var note = s.hidden ? " (hidden)" : lines ? " (" + lines.split("\n").length + " lines)" : " (nothing on stderr)";
      self.stderr.appendChild(el("details", { open: s.failure ? "open" : null, cls: s.failure ? "failed" : "" }, [
        el("summary", { text: head + note }),
        lines ? el("pre", { cls: "stderr", text: lines }) : null]));
    });
  };

  // ---- the match's header: seats, scores and failures --------------------------------------------------------------------
  // a seat's failure: its kind (public), after how many moves, and its detail where this reader may see it
  function failureText(s) {
    var text = s.failure + (s.at_action !== null && s.at_action !== undefined ? " after " + s.at_action + " moves" : "");
    return text + (s.hidden ? " (detail hidden)" : s.detail ? ": " + s.detail : "");
  }

  function header(root, doc, base) {
    var m = doc.match;
    var rows = doc.seats.map(function (s) {
      var name = s.page ? el("a", { cls: "bot", href: base + s.page, text: s.name }) : el("span", { text: s.name });
      return el("tr", {}, [el("td", { cls: "n", text: String(s.seat) }), el("td", {}, [name]),
        el("td", { cls: "n", "data-score-seat": s.seat, text: s.score === null || s.score === undefined ? "-" : String(s.score) }),
        el("td", { text: ordinal(s.rank) }), el("td", { cls: "n", text: fmtSeconds(s.think) }),
        el("td", { cls: s.failure ? "fail" : "", text: s.failure ? failureText(s) : "-" })]);
    });
    clear(root);
    root.appendChild(el("h1", { text: "Match " + m.id + ": " + m.title }));
    root.appendChild(el("p", {}, [m.tournament ? el("a", { href: base + "tournaments/" + m.tournament_id + ".html", text: m.tournament }) : null,
      (m.tournament ? ", " : "") + "key " + m.key + ", seed " + m.seed + ", options " + JSON.stringify(m.options) + "; status ",
      el("strong", { cls: "status", text: m.status }), (m.error ? ": " + m.error : "") + "; " + m.seconds.toFixed(2) + " s."]));
    root.appendChild(el("table", { cls: "seats" }, [el("thead", {}, [el("tr", {}, ["seat", "bot", "score", "rank", "thinking time", "failure"].map(function (h) {
      return el("th", { text: h }); }))]), el("tbody", {}, rows)]));
  }

  function start(doc) {
    var base = document.body.getAttribute("data-root") || "";
    header($("match-header"), doc, base);
    var viewer = new Viewer($("viewer"), doc);
    window.LadderReplay.viewer = viewer;
    viewer.fromHash();
    document.body.setAttribute("data-ready", "true");
  }
  function failed(error) {
    var root = $("viewer") || document.body;
    root.appendChild(el("p", { cls: "fail", id: "load-error", text: "The replay cannot be shown: " + error.message }));
    document.body.setAttribute("data-ready", "error");
    if (window.console) { console.error(error); }
  }

  window.LadderReplay = {
    renderers: renderers,
    // A static report's per-match script: the gzip'd JSON, base64-encoded.
    load: function (base64) { inflate(fromBase64(base64)).then(start, failed); },
    // A server: the gzip'd JSON over HTTP (served as bytes, not with Content-Encoding).
    fetch: function (url) {
      window.fetch(url).then(function (r) {
        if (!r.ok) { throw new Error(url + ": HTTP " + r.status); }
        return r.arrayBuffer();
      }).then(function (buffer) { return inflate(new Uint8Array(buffer)); }).then(start, failed);
    },
    decode: function (base64) { return inflate(fromBase64(base64)); }
  };
}());
