// An example bot in JavaScript for the ladder's JSON-lines protocol (docs/writing-a-bot.md).
//
// The ladder writes one JSON object per line on stdin:
//   {"type": "start", "game", "seat", "num_players", "options", "seed"}   a match begins
//   {"type": "act", "observation", "legal"}                               your turn: choose one of `legal`
//       (every observation starts with the same envelope in every game:
//        "game", "num_players", "seat", "current_player", "over"; the game's own fields follow)
//   {"type": "end", "result"}                                             the match is over
// and reads one line on stdout for every "act": the index of the chosen action in `legal`.
// Anything written to stderr is kept by the ladder (`ladder logs NAME` shows it).
"use strict";

const readline = require("readline");

// A small seeded generator (mulberry32), so the same match plays out the same way every time.
function generator(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = generator(1);
let match = null;

// Prefer playing a card to passing or drawing, when the game offers both; otherwise choose at random.
function choose(legal) {
  const plays = [];
  legal.forEach((action, index) => {
    if (action.type === "play") {
      plays.push(index);
    }
  });
  const pool = plays.length > 0 ? plays : legal.map((_, index) => index);
  return pool[Math.floor(random() * pool.length)];
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "start") {
    match = message;
    random = generator(Number(BigInt(message.seed) % 4294967296n));
    console.error(`example-js: ${message.game}, seat ${message.seat} of ${message.num_players}`);
  } else if (message.type === "act") {
    if (message.observation.current_player !== message.observation.seat) {
      console.error(`example-js: asked to act for seat ${message.observation.seat}, but seat ${message.observation.current_player} is to decide`);
    }
    process.stdout.write(`${choose(message.legal)}\n`);
  } else if (message.type === "end") {
    console.error(`example-js: scores ${JSON.stringify(message.result.scores)}`);
  }
});
