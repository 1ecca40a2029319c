// The page: it draws the state the server sends and sends the player's
// intents back. The game lives on the server; nothing here works out a board.
"use strict";

const $ = (id) => document.getElementById(id);
const ARROWS = { up: "\u2191", down: "\u2193", left: "\u2190", right: "\u2192" };
const KEYS = {
  ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right",
  w: "up", s: "down", a: "left", d: "right", W: "up", S: "down", A: "left", D: "right",
};
const BEST_KEY = "web2048.best";        // the player's best, own moves only
const AI_BEST_KEY = "web2048.aiBest";   // the best of games the AI played in
const ASSISTED_KEY = "web2048.assisted"; // ids of games the AI played in
const GAME_KEY = "web2048.game";        // the game to come back to
const POSITION_KEY = "web2048.position"; // where it stood, if the server forgot it
// Autoplay speeds, moves per second, one per step of the slider.
const SPEEDS = [1, 2, 5, 10, 20, 40, 60];
const MAX_SEED = 9007199254740991;      // 2^53 - 1: what JavaScript holds exactly

let state = null;      // the last game state the server sent (the one drawn)
let presets = [];      // from GET /api/presets
let stream = null;     // the autoplay EventSource, while autoplay runs
let queue = Promise.resolve(); // requests run one after another, in order

/// An error for the status line: a sentence, the HTTP status (0: no answer)
/// and the API's code.
function apiError(message, status, code) {
  const err = new Error(message);
  err.status = status;
  err.code = code;
  return err;
}

/// Calls the API; a non-2xx answer throws its JSON error. A server that
/// cannot be reached or answers something else throws a sentence too, never
/// the browser's own words ("Failed to fetch", a JSON parser's complaint).
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw apiError("The server cannot be reached: is it still running?", 0, "unreachable");
  }
  let data = null;
  if (res.status !== 204) {
    try {
      data = await res.json();
    } catch {
      throw apiError(`The server sent an answer the page cannot read (HTTP ${res.status}).`, res.status, "unreadable");
    }
  }
  if (!res.ok) {
    const message = data && data.error ? data.error : `The server refused the request (HTTP ${res.status}).`;
    throw apiError(message, res.status, data && data.code);
  }
  return data;
}

/// The game shown was forgotten by the server and came back from the
/// position the page holds: said once, briefly.
const BROUGHT_BACK = "The server had forgotten this game, so it was put back as it stood "
  + "(earlier moves can no longer be undone).";

/// Calls `method` on the game shown (`action`: "" or "/move" and the
/// like). When the server has forgotten the game (idle too long, or
/// restarted without its games file) it is put back from the position this
/// page holds, with a notice, and the call is made again (unless `again` is
/// false: an undo has nothing to go back to in a game just put back).
async function gameApi(method, action, body, again = true) {
  try {
    return await api(method, `/api/games/${state.id}${action}`, body);
  } catch (err) {
    if (err.code !== "unknown_game") throw err;
  }
  await bringBack({ id: state.id, position: state.position, keep_going: state.keep_going });
  showNotice(BROUGHT_BACK);
  return again ? api(method, `/api/games/${state.id}${action}`, body) : null;
}

/// Plays on from a kept game (`{id, position, keep_going}`) under a new id,
/// and draws it. A game the AI played in stays the AI's.
async function bringBack(kept) {
  const next = await api("POST", "/api/games", { restore: kept.position, keep_going: kept.keep_going });
  if (assistedGames().includes(kept.id)) markAssisted(next.id);
  render(next);
}

/// Queues an action so that key presses are sent in the order they came.
function enqueue(action) {
  queue = queue.then(action).catch((err) => showError(err));
  return queue;
}

/// A message as a sentence: a capital first and a full stop last (the
/// server's messages are written to be read in a line of their own).
function sentence(text) {
  const s = String(text).trim();
  if (s === "") return s;
  const capital = s[0].toUpperCase() + s.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/// How long a notice stays in the status line (an error stays until the
/// next action that works).
const NOTICE_MS = 8000;
let noticeTimer = null;

/// Writes the status line: `kind` is "error" (drawn as one) or "notice".
function say(text, kind) {
  clearTimeout(noticeTimer);
  const status = $("status");
  status.textContent = text ? sentence(text) : "";
  status.className = text ? `status ${kind}` : "status";
  if (text && kind === "notice") noticeTimer = setTimeout(() => say(null), NOTICE_MS);
}

function showError(err) {
  say(err ? err.message || err : null, "error");
}

function showNotice(text) {
  say(text, "notice");
}

/// Clears the status line of an error (a notice stays its time).
function clearError() {
  if ($("status").classList.contains("error")) say(null);
}

/// Whole numbers with thousands separators, as the scores show them.
function whole(n) {
  return (Number(n) || 0).toLocaleString("en");
}

// Tiles past 2048 share one style; those of six digits (131072, the largest
// a 4x4 game reaches) take a smaller font so that they fit the cell.
function tileClass(value) {
  if (value >= 100000) return "tile-super tile-wide";
  return value > 2048 ? "tile-super" : `tile-${value}`;
}

/// The ids of games the AI has played a move in (the last 100).
function assistedGames() {
  try {
    const ids = JSON.parse(localStorage.getItem(ASSISTED_KEY) || "[]");
    return Array.isArray(ids) ? ids : [];
  } catch {
    return [];
  }
}

function markAssisted(id) {
  const ids = assistedGames().filter((x) => x !== id);
  ids.push(id);
  localStorage.setItem(ASSISTED_KEY, JSON.stringify(ids.slice(-100)));
}

/// The position kept of the last game, if any and readable.
function keptPosition() {
  try {
    const kept = JSON.parse(localStorage.getItem(POSITION_KEY) || "null");
    return kept && kept.position ? kept : null;
  } catch {
    return null;
  }
}

/// Shows "+N" floating up from the score.
function showScoreAdd(n) {
  const add = $("score-add");
  add.classList.remove("show");
  add.textContent = `+${n}`;
  void add.offsetWidth; // restart the animation
  add.classList.add("show");
}

/// How long tiles take to slide, in milliseconds.
const SLIDE_MS = 100;

/// Where each tile of `board` goes when it slides toward `direction`, by the
/// rules (the server's own result is what is drawn; this only animates it):
/// for every tile after the move, its cell and the cells its tiles came
/// from (two for a merge, the one nearer the wall first).
function slidePlan(board, direction) {
  const n = board.length;
  const plan = [];
  for (let k = 0; k < n; k++) {
    const cells = [...Array(n).keys()].map((i) =>
      ({ left: [k, i], right: [k, n - 1 - i], up: [i, k], down: [n - 1 - i, k] })[direction]);
    const line = cells.filter(([r, c]) => board[r][c] > 0);
    let out = 0;
    for (let i = 0; i < line.length; i++) {
      const [r, c] = line[i];
      const next = line[i + 1];
      if (next && board[next[0]][next[1]] === board[r][c]) {
        plan.push({ to: cells[out], from: [line[i], next], value: board[r][c] });
        i += 1;
      } else {
        plan.push({ to: cells[out], from: [line[i]], value: board[r][c] });
      }
      out += 1;
    }
  }
  return plan;
}

/// Whether `plan` ends on the server's board: each tile where the server
/// has it, and nothing else but the spawned tile. The page never works out
/// a board; a plan that disagrees is not animated.
function planAgrees(plan, next) {
  const n = next.board.length;
  const board = next.board.map((row) => row.map(() => 0));
  for (const { to, from, value } of plan) board[to[0]][to[1]] = from.length === 2 ? 2 * value : value;
  const spawned = next.last_move && next.last_move.spawned;
  if (spawned) board[spawned.row][spawned.col] = spawned.value;
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) if (board[r][c] !== next.board[r][c]) return false;
  }
  return true;
}

/// A tile of `value` in cell (r, c) of the tile layer. `kind`: "new" (the
/// spawned tile), "merged" (the result of a merge), "merging" (one of the
/// two tiles that slide into a merge: drawn under its result, and not a
/// tile of the board) or "".
function makeTile(value, r, c, kind) {
  const tile = document.createElement("div");
  tile.className = `tile ${tileClass(value)}${kind ? ` ${kind}` : ""}`;
  tile.textContent = value;
  tile.style.gridRow = String(r + 1);
  tile.style.gridColumn = String(c + 1);
  if (kind !== "merging") {
    tile.dataset.value = value;
    tile.dataset.row = r;
    tile.dataset.col = c;
  }
  return tile;
}

/// Draws the tiles of `state`, and when `plan` (a slidePlan that agrees
/// with it) is given, slides them there as the original game does: every
/// tile glides from its cell before the move over the board's cells (the
/// tiles are a layer above them), the two tiles of a merge glide into one
/// cell and their sum pops up there once they have arrived, and the new tile
/// appears after the slide.
function drawTiles(plan) {
  const board = $("board");
  const layer = $("tiles");
  layer.replaceChildren();
  board.dataset.moves = state.moves;
  board.classList.toggle("sliding", plan !== null);
  const spawned = state.last_move && state.last_move.spawned;
  if (plan === null) {
    state.board.forEach((row, r) => row.forEach((value, c) => {
      if (value === 0) return;
      const isNew = spawned && spawned.row === r && spawned.col === c;
      layer.appendChild(makeTile(value, r, c, isNew ? "new" : ""));
    }));
    return;
  }
  // Counted for the browser test, which cannot catch a 100 ms animation.
  board.dataset.slides = String(Number(board.dataset.slides || 0) + 1);
  const cells = [...$("grid").children];
  const n = state.board.length;
  const rect = ([r, c]) => cells[r * n + c].getBoundingClientRect();
  for (const { to, from, value } of plan) {
    const dest = rect(to);
    for (const source of from) {
      const tile = makeTile(value, to[0], to[1], from.length === 2 ? "merging" : "");
      layer.appendChild(tile);
      const src = rect(source);
      const [dx, dy] = [src.left - dest.left, src.top - dest.top];
      if (dx !== 0 || dy !== 0) {
        tile.animate(
          [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
          { duration: SLIDE_MS, easing: "ease-in-out" },
        );
      }
    }
    if (from.length === 2) layer.appendChild(makeTile(2 * value, to[0], to[1], "merged"));
  }
  if (spawned) layer.appendChild(makeTile(spawned.value, spawned.row, spawned.col, "new"));
}

/// Draws `next` (a state from the server) and remembers it.
function render(next) {
  const previous = state;
  state = next;
  localStorage.setItem(GAME_KEY, state.id);
  localStorage.setItem(POSITION_KEY, JSON.stringify({
    id: state.id, position: state.position, keep_going: state.keep_going,
  }));
  if (previous && previous.id === state.id && state.score > previous.score && state.moves > previous.moves) {
    showScoreAdd(state.score - previous.score);
  }
  // A move just played slides, unless autoplay's moves come faster than a
  // slide lasts or the reader asked for less motion.
  const oneMove = previous && previous.id === state.id && state.moves === previous.moves + 1;
  const tooFast = stream && 1000 / movesPerSecond() < 1.5 * SLIDE_MS;
  let plan = null;
  if (oneMove && state.last_move && !tooFast
      && !window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
    plan = slidePlan(previous.board, state.last_move.direction);
    if (!planAgrees(plan, state)) plan = null;
  }
  drawTiles(plan);
  $("score").textContent = whole(state.score);
  // The player's best counts games they played alone; a game the AI played
  // in counts toward the AI's.
  const key = assistedGames().includes(state.id) ? AI_BEST_KEY : BEST_KEY;
  localStorage.setItem(key, String(Math.max(Number(localStorage.getItem(key)) || 0, state.score)));
  $("best").textContent = whole(localStorage.getItem(BEST_KEY));
  $("ai-best").textContent = whole(localStorage.getItem(AI_BEST_KEY));
  $("game-seed").textContent = state.seed;
  $("undo").disabled = !state.can_undo;
  $("hint-button").disabled = state.over;

  const overlay = $("overlay");
  if (state.over) {
    overlay.hidden = false;
    overlay.className = "overlay";
    $("overlay-text").textContent = "Game over!";
    $("keep-going").hidden = true;
  } else if (state.won && !state.keep_going) {
    overlay.hidden = false;
    overlay.className = "overlay won";
    $("overlay-text").textContent = "You reached 2048!";
    $("keep-going").hidden = false;
  } else {
    overlay.hidden = true;
  }
}

const DIRECTIONS = ["up", "down", "left", "right"];
/// Whether the hint's raw values are shown (the reader opened them).
let rawOpen = false;

/// A shortfall from the best move (0 to 1) as people read it.
function shortfallText(s) {
  if (s === 0) return "as good";
  const pct = 100 * s;
  if (pct < 0.1) return "\u2212<0.1%";
  return `\u2212${pct < 10 ? pct.toFixed(1) : pct.toFixed(0)}%`;
}

/// Shows a hint: each direction, the best first. Where an endgame table
/// decided, the values are each move's odds of building the table's goal
/// tile, shown as such; elsewhere they are the search's raw values (huge,
/// and below 0 on crowded boards), so each move is shown by how much worse
/// it is than the best (the API's `shortfall`), and the raw values are one
/// click away.
function renderHint(hint) {
  const box = $("hint");
  box.replaceChildren();
  const odds = hint.endgame !== null && hint.endgame !== undefined;
  const head = document.createElement("div");
  head.className = "hint-head";
  const best = document.createElement("span");
  best.className = "best";
  best.id = "hint-direction";
  best.textContent = `${ARROWS[hint.direction]} ${hint.direction}`;
  const about = document.createElement("span");
  about.className = "about";
  about.textContent = odds
    ? ` odds of building ${hint.goal ? `a ${whole(hint.goal)}` : "the table's goal"} (endgame table: ${hint.endgame}, ${hint.elapsed_ms} ms)`
    : ` (${hint.preset}, depth ${hint.depth}, ${hint.elapsed_ms} ms)`;
  head.append("Hint: ", best, about);

  // The best first, the others from the least to the most worse (ties in
  // the order of the arrows); directions that move nothing last.
  const rank = (dir) => {
    if (dir === hint.direction) return -Infinity;
    const v = hint.values[dir];
    if (v === null || v === undefined) return Infinity;
    if (odds) return -v;
    const s = hint.shortfall && hint.shortfall[dir];
    return typeof s === "number" ? s : Infinity;
  };
  const order = [...DIRECTIONS].sort((a, b) => rank(a) - rank(b));
  const rows = document.createElement("div");
  rows.className = "rows";
  for (const dir of order) {
    const v = hint.values[dir];
    const s = hint.shortfall ? hint.shortfall[dir] : null;
    const row = document.createElement("div");
    row.className = dir === hint.direction ? "row best" : "row";
    row.dataset.direction = dir;
    const name = document.createElement("span");
    name.className = "dir";
    name.textContent = `${ARROWS[dir]} ${dir}`;
    const bar = document.createElement("span");
    bar.className = "bar";
    const fill = document.createElement("span");
    const label = document.createElement("span");
    label.className = "label";
    if (v === null || v === undefined) {
      row.classList.add("illegal");
      label.textContent = "does not move";
      fill.style.width = "0";
    } else if (odds) {
      label.textContent = `${(100 * v).toFixed(1)}%`;
      fill.style.width = `${Math.max(0, Math.min(1, v)) * 100}%`;
    } else {
      const shortfall = typeof s === "number" ? s : 0;
      label.textContent = dir === hint.direction ? "best" : shortfallText(shortfall);
      fill.style.width = `${(1 - Math.max(0, Math.min(1, shortfall))) * 100}%`;
    }
    bar.appendChild(fill);
    row.append(name, bar, label);
    rows.appendChild(row);
  }

  const raw = document.createElement("details");
  raw.id = "hint-raw";
  raw.open = rawOpen;
  raw.addEventListener("toggle", () => { rawOpen = raw.open; });
  const summary = document.createElement("summary");
  summary.textContent = odds ? "Raw values (odds, 0 to 1)" : "Raw values (the search's own scale)";
  raw.appendChild(summary);
  for (const dir of DIRECTIONS) {
    const v = hint.values[dir];
    const span = document.createElement("span");
    span.dataset.direction = dir;
    // Rounded first: `|| 0` turns -0 (a learned search's losing move, a
    // hair below 0) into 0.
    const digits = odds ? 1e6 : 100;
    span.textContent = `${ARROWS[dir]} ${v === null || v === undefined
      ? "\u2013" : (Math.round(v * digits) / digits || 0).toLocaleString("en", { maximumFractionDigits: 6 })}`;
    raw.appendChild(span);
  }
  box.append(head, rows, raw);
}

function clearHint() {
  $("hint").replaceChildren();
}

// --- actions -------------------------------------------------------------

/// A new game: from the seed typed in (then cleared), or a random one.
async function newGame() {
  const field = $("seed");
  const text = field.value.trim();
  if (text !== "" && !(/^[0-9]+$/.test(text) && Number(text) <= MAX_SEED)) {
    showError(`A seed is a whole number from 0 to ${MAX_SEED.toLocaleString("en")}.`);
    field.focus();
    return;
  }
  stopAutoplay();
  const next = await api("POST", "/api/games", text === "" ? {} : { seed: Number(text) });
  field.value = "";
  field.blur();
  clearHint();
  say(null);
  render(next);
}

async function move(direction) {
  if (!state || state.over || (state.won && !state.keep_going)) return;
  // A key during autoplay takes the game back: autoplay stops, the key plays.
  const paused = stream !== null;
  if (paused) stopAutoplay();
  try {
    // The server says which directions change the board: don't send the rest.
    if (!state.legal.includes(direction)) return;
    render(await gameApi("POST", "/move", { direction }));
    clearHint();
    clearError();
  } catch (err) {
    // A direction that changes nothing is not worth a message.
    if (err.code !== "nothing_moves") throw err;
  } finally {
    if (paused) showNotice("Autoplay paused: your move.");
  }
}

async function undo() {
  if (!state || !state.can_undo) return;
  stopAutoplay();
  const next = await gameApi("POST", "/undo", undefined, false);
  if (next) render(next);
  clearHint();
  clearError();
}

/// The chosen AI preset, as `GET /api/presets` described it (undefined
/// before the list came).
function chosenPreset() {
  return presets.find((p) => p.name === $("preset").value);
}

/// Why the chosen preset cannot play here, in the server's words, or null.
function unavailable(preset) {
  if (!preset || preset.available) return null;
  return preset.reason || `The ${preset.name} preset is not available on this server.`;
}

async function hint() {
  if (!state || state.over) return;
  const why = unavailable(chosenPreset());
  if (why) {
    showError(why);
    return;
  }
  $("hint").textContent = "Thinking\u2026";
  try {
    renderHint(await gameApi("POST", "/hint", { preset: $("preset").value }));
    clearError();
  } catch (err) {
    clearHint();
    throw err;
  }
}

async function keepGoing() {
  render(await gameApi("POST", "/keep-going"));
}

function movesPerSecond() {
  return SPEEDS[Number($("speed").value)] || SPEEDS[0];
}

function delayMs() {
  return Math.round(1000 / movesPerSecond());
}

function showSpeed() {
  const n = movesPerSecond();
  $("speed-label").textContent = `${n} ${n === 1 ? "move" : "moves"}/s`;
}

/// Starts (or restarts, with the speed and preset chosen now) autoplay.
async function startAutoplay() {
  if (!state) return;
  const why = unavailable(chosenPreset());
  if (why) {
    showError(why);
    return;
  }
  stopAutoplay();
  clearError();
  // A stream cannot put a forgotten game back: make sure the server has it.
  render(await gameApi("GET", ""));
  const preset = $("preset").value;
  const url = `/api/games/${state.id}/autoplay?preset=${encodeURIComponent(preset)}&delay_ms=${delayMs()}`;
  const source = new EventSource(url);
  stream = source;
  let heard = false;
  $("autoplay").setAttribute("aria-pressed", "true");
  $("autoplay").textContent = "Stop";
  source.addEventListener("state", (e) => { heard = true; render(JSON.parse(e.data)); });
  source.addEventListener("move", (e) => {
    heard = true;
    const data = JSON.parse(e.data);
    markAssisted(data.state.id);
    render(data.state);
    renderHint(data.hint);
  });
  source.addEventListener("end", (e) => {
    const data = JSON.parse(e.data);
    const current = stream === source;
    if (current) stopAutoplay();
    if (data.state) render(data.state);
    if (data.code === "unknown_game" && current) {
      // The server forgot the game while it played (pushed out by others):
      // put it back and play on.
      enqueue(async () => {
        await bringBack({ id: state.id, position: state.position, keep_going: state.keep_going });
        showNotice(BROUGHT_BACK);
        await startAutoplay();
      });
    } else if (data.reason === "error") {
      showError(`Autoplay stopped: ${data.message}`);
    }
  });
  source.onerror = () => {
    // EventSource would reconnect and start a new autoplay: stop instead.
    if (stream !== source) return;
    stopAutoplay();
    if (heard) {
      showError("Autoplay stopped: the connection to the server was lost.");
      return;
    }
    // The server refused the stream before it began; its reason comes with
    // a JSON error, which EventSource does not read: a hint asks the same.
    enqueue(async () => {
      try {
        await api("POST", `/api/games/${state.id}/hint`, { preset });
        showError("Autoplay could not start; try again.");
      } catch (err) {
        showError(`Autoplay could not start: ${err.message}`);
      }
    });
  };
}

function stopAutoplay() {
  if (stream) stream.close();
  stream = null;
  $("autoplay").setAttribute("aria-pressed", "false");
  $("autoplay").textContent = "Autoplay";
}

// --- wiring --------------------------------------------------------------

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const direction = KEYS[e.key];
  const control = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement;
  // Typing a seed keeps its letters and its left and right arrows; every
  // other arrow press plays, whatever control has the focus (the speed
  // slider and the AI menu would otherwise take them).
  const typing = e.target === $("seed") && !["ArrowUp", "ArrowDown"].includes(e.key);
  if (control && (typing || !direction)) return;
  if (direction) {
    e.preventDefault();
    if (control) e.target.blur();
    enqueue(() => move(direction));
  } else if (e.key === "u" || e.key === "U") {
    enqueue(undo);
  } else if (e.key === "h" || e.key === "H") {
    enqueue(hint);
  }
});

let touchStart = null;
$("board").parentElement.addEventListener("touchstart", (e) => {
  if (e.touches.length === 1) touchStart = { x: e.touches[0].clientX, y: e.touches[0].clientY };
}, { passive: true });
$("board").parentElement.addEventListener("touchend", (e) => {
  if (!touchStart || e.changedTouches.length !== 1) return;
  const dx = e.changedTouches[0].clientX - touchStart.x;
  const dy = e.changedTouches[0].clientY - touchStart.y;
  touchStart = null;
  if (Math.max(Math.abs(dx), Math.abs(dy)) < 30) return;
  const direction = Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "right" : "left") : (dy > 0 ? "down" : "up");
  enqueue(() => move(direction));
});

// A button clicked (or tapped) gives the focus back to the page: kept, it
// would make a later Enter or Space press it again, throwing the game away
// or undoing once more. Pressed from the keyboard (detail 0), it keeps the
// focus, where its user is.
for (const button of document.querySelectorAll("button")) {
  button.addEventListener("click", (e) => { if (e.detail > 0) button.blur(); });
}
$("new-game").addEventListener("click", () => enqueue(newGame));
$("try-again").addEventListener("click", () => { $("seed").value = ""; enqueue(newGame); });
$("undo").addEventListener("click", () => enqueue(undo));
$("hint-button").addEventListener("click", () => enqueue(hint));
$("keep-going").addEventListener("click", () => enqueue(keepGoing));
$("seed").addEventListener("keydown", (e) => { if (e.key === "Enter") enqueue(newGame); });
$("autoplay").addEventListener("click", () => (stream ? stopAutoplay() : enqueue(startAutoplay)));
// A new speed or preset restarts a running autoplay with it.
$("speed").addEventListener("input", showSpeed);
$("speed").addEventListener("change", () => { if (stream) enqueue(startAutoplay); });
$("preset").addEventListener("change", () => { if (stream) enqueue(startAutoplay); });
$("tables-build").addEventListener("click", () => enqueue(buildTables));

// The board's empty cells, under the tile layer.
for (let i = 0; i < 16; i++) {
  const cell = document.createElement("div");
  cell.className = "cell";
  $("grid").appendChild(cell);
}
showSpeed();

/// How often the page asks how far the tables' build has come.
const TABLES_POLL_MS = 1000;

/// Shows where the corner tables stand (`GET /api/tables`): an offer with
/// a button where they are missing, a bar while they are built; once
/// built, the preset menu learns it and makes corner its choice.
async function showTables(tables) {
  const section = $("tables");
  section.hidden = tables.state === "built" || tables.state === "unavailable";
  $("tables-text").textContent = tables.message;
  $("tables-build").hidden = !(tables.state === "missing" || tables.state === "failed");
  $("tables-build").textContent = tables.state === "failed" ? "Try again" : "Build them";
  const bar = $("tables-progress");
  bar.hidden = tables.state !== "building";
  bar.value = tables.total > 0 ? tables.done / tables.total : 0;
  if (tables.state === "building") {
    setTimeout(() => enqueue(pollTables), TABLES_POLL_MS);
  } else if (tables.state === "built" && presets.some((p) => p.name === "corner" && !p.available)) {
    // Built since the menu was made: corner is available, and the default.
    await loadPresets();
  }
}

async function pollTables() {
  await showTables(await api("GET", "/api/tables"));
}

async function buildTables() {
  await showTables(await api("POST", "/api/tables/build"));
}

/// The preset menu, as `GET /api/presets` describes it, set to the
/// server's default.
async function loadPresets() {
  const info = await api("GET", "/api/presets");
  presets = info.presets;
  const select = $("preset");
  select.replaceChildren();
  for (const p of presets) {
    const option = document.createElement("option");
    option.value = p.name;
    // What it lacks in a word ("no tables", "no weights"): choosing it says
    // why in the server's sentence.
    option.textContent = p.available ? p.name : `${p.name} (${p.missing ? `no ${p.missing}` : "unavailable"})`;
    select.appendChild(option);
  }
  select.value = info.default;
}

async function start() {
  await loadPresets();
  await showTables(await api("GET", "/api/tables"));
  // The game of the last visit, in this tab or a closed one, if the server
  // still has it.
  const saved = localStorage.getItem(GAME_KEY);
  if (saved) {
    try {
      render(await api("GET", `/api/games/${saved}`));
      return;
    } catch (err) {
      if (err.status !== 404) throw err;
    }
  }
  // The server forgot it (idle too long, or lost): play on from where it
  // stood, as the original keeps its game in the browser.
  const kept = keptPosition();
  if (kept) {
    try {
      await bringBack(kept);
      showNotice(BROUGHT_BACK);
      return;
    } catch (err) {
      if (err.status !== 422) throw err;
    }
  }
  await newGame();
}

enqueue(start);
