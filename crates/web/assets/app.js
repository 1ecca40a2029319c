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

let state = null;      // the last game state the server sent
let presets = [];      // from GET /api/presets
let stream = null;     // the autoplay EventSource, while autoplay runs
let queue = Promise.resolve(); // requests run one after another, in order

/// Calls the API; a non-2xx answer throws its JSON error.
async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const data = res.status === 204 ? null : await res.json();
  if (!res.ok) {
    const err = new Error(data && data.error ? data.error : res.statusText);
    err.status = res.status;
    err.code = data && data.code;
    throw err;
  }
  return data;
}

/// Queues an action so that key presses are sent in the order they came.
function enqueue(action) {
  queue = queue.then(action).catch((err) => showError(err));
  return queue;
}

function showError(err) {
  $("status").textContent = err ? String(err.message || err) : "";
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

/// Slides the tiles of the board just drawn from where they were in
/// `before`, the move `direction`: each tile glides from its first source,
/// the second tile of a merge glides in as a ghost over the board, and the
/// merged tile swells.
function animateSlide(before, direction) {
  const board = $("board");
  const n = before.length;
  const cells = [...board.children];
  const wrap = board.parentElement.getBoundingClientRect();
  const rect = ([r, c]) => cells[r * n + c].getBoundingClientRect();
  board.classList.add("sliding");
  // Counted for the browser test, which cannot catch a 100 ms animation.
  board.dataset.slides = String(Number(board.dataset.slides || 0) + 1);
  for (const { to, from, value } of slidePlan(before, direction)) {
    const tile = cells[to[0] * n + to[1]].firstChild;
    if (!tile) continue;
    const dest = rect(to);
    const glide = (src) => [
      { transform: `translate(${src.left - dest.left}px, ${src.top - dest.top}px)` },
      { transform: "none" },
    ];
    tile.animate(glide(rect(from[0])), { duration: SLIDE_MS, easing: "ease-in-out" });
    if (from.length === 2) {
      tile.classList.add("merged");
      const ghost = document.createElement("div");
      ghost.className = `tile ${tileClass(value)}`;
      ghost.textContent = value;
      Object.assign(ghost.style, {
        left: `${dest.left - wrap.left}px`, top: `${dest.top - wrap.top}px`,
        width: `${dest.width}px`, height: `${dest.height}px`,
      });
      $("ghosts").appendChild(ghost);
      ghost.animate(glide(rect(from[1])), { duration: SLIDE_MS, easing: "ease-in-out" })
        .finished.then(() => ghost.remove(), () => ghost.remove());
    }
  }
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
  const board = $("board");
  board.replaceChildren();
  board.classList.remove("sliding");
  $("ghosts").replaceChildren();
  const spawned = state.last_move && state.last_move.spawned;
  state.board.forEach((row, r) => row.forEach((value, c) => {
    const cell = document.createElement("div");
    cell.className = "cell";
    if (value > 0) {
      const tile = document.createElement("div");
      tile.className = `tile ${tileClass(value)}`;
      if (spawned && spawned.row === r && spawned.col === c) tile.classList.add("new");
      tile.textContent = value;
      tile.dataset.value = value;
      cell.appendChild(tile);
    }
    board.appendChild(cell);
  }));
  board.dataset.moves = state.moves;
  // A move just played slides, unless autoplay's moves come faster than a
  // slide lasts or the reader asked for less motion.
  const oneMove = previous && previous.id === state.id && state.moves === previous.moves + 1;
  const tooFast = stream && 1000 / movesPerSecond() < 1.5 * SLIDE_MS;
  if (oneMove && state.last_move && !tooFast
      && !window.matchMedia("(prefers-reduced-motion: reduce)").matches) {
    animateSlide(previous.board, state.last_move.direction);
  }
  $("score").textContent = state.score;
  // The player's best counts games they played alone; a game the AI played
  // in counts toward the AI's.
  const key = assistedGames().includes(state.id) ? AI_BEST_KEY : BEST_KEY;
  localStorage.setItem(key, String(Math.max(Number(localStorage.getItem(key)) || 0, state.score)));
  $("best").textContent = Number(localStorage.getItem(BEST_KEY)) || 0;
  $("ai-best").textContent = (Number(localStorage.getItem(AI_BEST_KEY)) || 0).toLocaleString("en");
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

function renderHint(hint) {
  const box = $("hint");
  box.replaceChildren();
  const head = document.createElement("div");
  // A table's values are odds of building the chain's next tile.
  const odds = hint.endgame !== null;
  head.textContent = odds
    ? `Hint (${hint.preset}, endgame table: ${hint.endgame}, ${hint.elapsed_ms} ms): `
    : `Hint (${hint.preset}, depth ${hint.depth}, ${hint.elapsed_ms} ms): `;
  const best = document.createElement("span");
  best.className = "best";
  best.id = "hint-direction";
  best.textContent = `${ARROWS[hint.direction]} ${hint.direction}`;
  head.appendChild(best);
  const values = document.createElement("div");
  values.className = "values";
  for (const dir of ["up", "down", "left", "right"]) {
    const v = hint.values[dir];
    const span = document.createElement("span");
    span.dataset.direction = dir;
    // `|| 0` turns -0 (a learned search's losing move, a hair below 0) into 0.
    const shown = odds ? `${(100 * v).toFixed(1)}%` : (Math.round(v) || 0).toLocaleString("en");
    span.textContent = `${ARROWS[dir]} ${v === null ? "\u2013" : shown}`;
    if (dir === hint.direction) span.className = "best";
    values.appendChild(span);
  }
  box.append(head, values);
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
  showError(null);
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
    render(await api("POST", `/api/games/${state.id}/move`, { direction }));
    clearHint();
    showError(null);
  } catch (err) {
    // A direction that changes nothing is not worth a message.
    if (err.code !== "nothing_moves") throw err;
  } finally {
    if (paused) $("status").textContent = "Autoplay paused: your move.";
  }
}

async function undo() {
  if (!state || !state.can_undo) return;
  stopAutoplay();
  render(await api("POST", `/api/games/${state.id}/undo`));
  clearHint();
}

async function hint() {
  if (!state || state.over) return;
  $("hint").textContent = "Thinking\u2026";
  renderHint(await api("POST", `/api/games/${state.id}/hint`, { preset: $("preset").value }));
}

async function keepGoing() {
  render(await api("POST", `/api/games/${state.id}/keep-going`));
}

function movesPerSecond() {
  return SPEEDS[Number($("speed").value)] || SPEEDS[0];
}

function delayMs() {
  return Math.round(1000 / movesPerSecond());
}

function showSpeed() {
  $("speed-label").textContent = `${movesPerSecond()} moves/s`;
}

function startAutoplay() {
  if (!state) return;
  const chosen = presets.find((p) => p.name === $("preset").value);
  if (chosen && !chosen.available) {
    showError(`The ${chosen.name} preset needs the learned weights file, which is missing.`);
    return;
  }
  stopAutoplay();
  showError(null);
  const url = `/api/games/${state.id}/autoplay?preset=${encodeURIComponent($("preset").value)}` +
    `&delay_ms=${delayMs()}`;
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
    if (data.state) render(data.state);
    if (data.reason === "error") showError(`Autoplay stopped: ${data.message}`);
    if (stream === source) stopAutoplay();
  });
  source.onerror = () => {
    // EventSource would reconnect and start a new autoplay: stop instead.
    if (stream !== source) return;
    stopAutoplay();
    if (!heard) showError("Autoplay could not start (is the preset available?)");
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

$("new-game").addEventListener("click", () => enqueue(newGame));
$("try-again").addEventListener("click", () => { $("seed").value = ""; enqueue(newGame); });
$("undo").addEventListener("click", () => enqueue(undo));
$("hint-button").addEventListener("click", () => enqueue(hint));
$("keep-going").addEventListener("click", () => enqueue(keepGoing));
$("seed").addEventListener("keydown", (e) => { if (e.key === "Enter") enqueue(newGame); });
$("autoplay").addEventListener("click", () => (stream ? stopAutoplay() : startAutoplay()));
// A new speed or preset restarts a running autoplay with it.
$("speed").addEventListener("input", showSpeed);
$("speed").addEventListener("change", () => { if (stream) startAutoplay(); });
$("preset").addEventListener("change", () => { if (stream) startAutoplay(); });

async function start() {
  const info = await api("GET", "/api/presets");
  presets = info.presets;
  const select = $("preset");
  for (const p of presets) {
    const option = document.createElement("option");
    option.value = p.name;
    option.textContent = p.available ? p.name : `${p.name} (no weights)`;
    select.appendChild(option);
  }
  select.value = info.default;
  showSpeed();
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
    const wasAssisted = assistedGames().includes(kept.id);
    try {
      const next = await api("POST", "/api/games", { restore: kept.position, keep_going: kept.keep_going });
      if (wasAssisted) markAssisted(next.id);
      render(next);
      return;
    } catch (err) {
      if (err.status !== 422) throw err;
    }
  }
  await newGame();
}

enqueue(start);
