// End-to-end test of the web frontend in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core; no browser download).
//
// It starts the server on a free port, loads the page, starts games (a
// typed seed, New game's random ones, bad seeds refused), plays with the
// keys and sees the tiles slide, the score and "+N" change, checks that arrow keys
// play whatever control has the focus and the speed slider's steps, plays by
// swipes (touch events) and checks each against the rules, asks for a hint,
// builds the corner tables from the AI menu (then corner is the default),
// undoes, runs autoplay until the score rises (its score counts toward the
// AI's best, not the player's), takes the game back from autoplay with a
// key, reloads and reopens the page to the same game (also after a server
// restart, and from the browser's copy once the server forgot it, on a reload
// or in the open tab at the next key), lays out the won overlay on a 390 px
// phone, checks the layout on a 320 px one, and takes screenshots. On the
// way it checks what a player would notice: the board near the top on a
// desktop and a phone, slides as the original's (frozen mid-slide: every
// tile over the cells, the two tiles of a merge before their sum, no new
// tile yet), no focus left on a clicked button, hints that rate each move
// against the best, and the status line's sentences.
//
//   node test.mjs                  # builds the server with cargo if needed
//   WEB_BIN=target/debug/web node test.mjs
//   node test.mjs --screenshot ../../../docs/web.png --until-tile 512
//
// Environment: WEB_BIN (the server binary; default: `cargo build -p web`),
// CHROMIUM (default /usr/bin/chromium).

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../..");
const started = Date.now();

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}
const screenshotPath = resolve(option("--screenshot", join(here, "screenshots", "e2e.png")));
const untilTile = Number(option("--until-tile", "0"));

function log(message) {
  console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
}

/// The server binary: WEB_BIN, or built by cargo into the target directory.
function serverBinary() {
  if (process.env.WEB_BIN) return resolve(process.env.WEB_BIN);
  log("building the server: cargo build -p web");
  const built = spawnSync("cargo", ["build", "-q", "-p", "web"], { cwd: root, stdio: "inherit" });
  if (built.status !== 0) throw new Error("cargo build -p web failed");
  const target = process.env.CARGO_TARGET_DIR ? resolve(root, process.env.CARGO_TARGET_DIR) : join(root, "target");
  return join(target, "debug", "web");
}

/// Starts the server on port 0 and resolves with its address once it
/// prints `listening on http://...`.
function startServer(binary, gamesFile, port = 0) {
  // The corner tables' folder is the test's own (the smallest corner set,
  // built in a moment), so that the page offers them whatever the machine
  // holds.
  const tables = join(dirname(gamesFile), "tables");
  const args = ["--port", String(port), "--search-ms", "60", "--games", gamesFile,
    "--tables", tables, "--tables-max-states", "2000000"];
  const server = spawn(binary, args, { stdio: ["ignore", "pipe", "inherit"] });
  const address = new Promise((resolveAddress, reject) => {
    const lines = createInterface({ input: server.stdout });
    lines.on("line", (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m) resolveAddress(m[1]);
    });
    server.on("exit", (code) => reject(new Error(`the server exited (${code}) before listening`)));
    server.on("error", reject);
  });
  return { server, address };
}

/// What the page shows, read for the assertions (the page itself never
/// reads its DOM back).
async function shown(page) {
  return page.evaluate(() => {
    // The board's tiles (a merge's two sliding tiles, kept under its sum
    // until the next move, are not tiles of the board).
    const tiles = new Array(16).fill(0);
    for (const t of document.querySelectorAll("#tiles .tile[data-value]")) {
      tiles[4 * Number(t.dataset.row) + Number(t.dataset.col)] = Number(t.dataset.value);
    }
    const number = (sel) => Number(document.querySelector(sel).textContent.replace(/,/g, ""));
    return {
      tiles,
      score: number("#score"),
      best: number("#best"),
      moves: Number(document.querySelector("#board").dataset.moves),
      seed: document.querySelector("#game-seed").textContent,
      field: document.querySelector("#seed").value,
      aiBest: number("#ai-best"),
    };
  });
}

/// Freezes every animation the next redraw of the board starts, `at` ms
/// in (a slide lasts 100 ms, then the new tile appears and a merge's sum
/// pops, 200 ms): a MutationObserver runs once the page has drawn the
/// move and started its animations, before the browser paints. Await
/// `frozen(page)` once the move has been drawn.
async function freezeNextSlide(page, at) {
  await page.evaluate((at) => {
    window.frozenSlide = new Promise((resolve) => {
      const watcher = new MutationObserver(() => {
        watcher.disconnect();
        const animations = document.getAnimations();
        for (const a of animations) {
          a.pause();
          a.currentTime = at;
        }
        resolve(animations.length);
      });
      watcher.observe(document.querySelector("#board"), { childList: true, subtree: true });
    });
  }, at);
}

async function frozen(page) {
  return page.evaluate(() => window.frozenSlide);
}

/// The tile values a player sees now, sorted: a tile counts when it is on
/// top where it stands (not under a cell or another tile) and not shrunk
/// to nothing or faded out.
async function seenTiles(page) {
  return page.evaluate(() => [...document.querySelectorAll("#tiles .tile")]
    .filter((t) => {
      const r = t.getBoundingClientRect();
      if (r.width < 2 || Number(getComputedStyle(t).opacity) < 0.1) return false;
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return hit !== null && (hit === t || t.contains(hit));
    })
    .map((t) => Number(t.textContent))
    .sort((a, b) => a - b));
}

/// What a player sees in each cell (row by row): the value of the tile on
/// top at its centre, or 0.
async function seenCells(page) {
  return page.evaluate(() => [...document.querySelectorAll("#grid .cell")].map((cell) => {
    const r = cell.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    const tile = hit && hit.closest(".tile");
    return tile ? Number(tile.textContent) : 0;
  }));
}

/// A crowded board past 32768 on which the heuristic's values are all
/// far below 0 (around -471,190,208): raw values that say nothing to a
/// player, which the hint must still rate.
const LATE_BOARD = "65536 32768 16384 8192/256 512 1024 4096/128 64 32 2/2 4 8 0";

/// The hint's rows as shown: direction and label, top to bottom.
async function hintRows(page) {
  return page.$$eval("#hint .row", (rows) => rows.map((r) => ({
    direction: r.dataset.direction,
    label: r.querySelector(".label").textContent,
  })));
}

/// Checks the hint shown against `hint`, the API's answer: the chosen move
/// first, marked best; every other move that moves by how much worse it is
/// (a minus and a percentage, whatever the values' sign), from the least
/// to the most worse; those that move nothing last; and the raw values
/// hidden until their summary is clicked, then equal to the API's.
async function checkHint(page, hint) {
  const rows = await hintRows(page);
  assert.equal(rows.length, 4, JSON.stringify(rows));
  assert.deepEqual(rows[0], { direction: hint.direction, label: "best" });
  const legal = rows.filter((r) => hint.values[r.direction] !== null);
  const illegal = rows.filter((r) => hint.values[r.direction] === null);
  assert.deepEqual(rows, [...legal, ...illegal], "moves that change nothing come last");
  for (const r of legal.slice(1)) assert.match(r.label, /^(as good|\u2212(<0\.1|[0-9]+(\.[0-9])?)%)$/, JSON.stringify(r));
  for (const r of illegal) assert.equal(r.label, "does not move");
  for (let i = 1; i < legal.length; i++) {
    const [a, b] = [hint.values[legal[i - 1].direction], hint.values[legal[i].direction]];
    assert.ok(a >= b, `rows out of order: ${JSON.stringify(rows)} for ${JSON.stringify(hint.values)}`);
  }
  assert.equal(await page.locator("#hint-raw span").first().isVisible(), false, "raw values shown at once");
  await page.click("#hint-raw summary");
  const raw = await page.$$eval("#hint-raw span", (spans) => spans.map((s) => [s.dataset.direction, s.textContent]));
  for (const [direction, text] of raw) {
    const v = hint.values[direction];
    const number = text.slice(2).replace(/,/g, "");
    if (v === null) assert.equal(number, "\u2013");
    else assert.ok(Math.abs(Number(number) - v) <= 0.005 + 1e-9 * Math.abs(v), `${direction}: ${text} for ${v}`);
  }
  await page.click("#hint-raw summary"); // folded again for what follows
}

/// Where the board is in the viewport.
async function boardBox(page) {
  return page.$eval("#board", (el) => {
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, height: r.height };
  });
}

/// The 16 cells (row by row) after sliding `tiles` toward `direction`, by
/// the rules, written out here independently of the engine: each line's
/// tiles close up toward the wall, and equal neighbours merge once, the pair
/// nearest the wall first.
function slid(tiles, direction) {
  const out = new Array(16).fill(0);
  for (let k = 0; k < 4; k++) {
    const cells = [0, 1, 2, 3].map((i) =>
      ({ left: 4 * k + i, right: 4 * k + 3 - i, up: k + 4 * i, down: k + 4 * (3 - i) })[direction]);
    const line = cells.map((c) => tiles[c]).filter((v) => v > 0);
    const merged = [];
    for (let i = 0; i < line.length; i++) {
      if (i + 1 < line.length && line[i] === line[i + 1]) {
        merged.push(2 * line[i]);
        i += 1;
      } else {
        merged.push(line[i]);
      }
    }
    cells.forEach((c, i) => { out[c] = merged[i] || 0; });
  }
  return out;
}

/// A one-finger swipe by (dx, dy) pixels from the board's centre, as touch
/// events on the element that listens for them.
async function swipe(page, dx, dy) {
  await page.evaluate(([dx, dy]) => {
    const target = document.querySelector("#board").parentElement;
    const r = target.getBoundingClientRect();
    const [x, y] = [r.left + r.width / 2, r.top + r.height / 2];
    const touch = (cx, cy) => new Touch({ identifier: 1, target, clientX: cx, clientY: cy });
    const [from, to] = [touch(x, y), touch(x + dx, y + dy)];
    target.dispatchEvent(new TouchEvent("touchstart", { touches: [from], changedTouches: [from], bubbles: true }));
    target.dispatchEvent(new TouchEvent("touchend", { touches: [], changedTouches: [to], bubbles: true }));
  }, [dx, dy]);
}

/// How long a move may take to show before the test takes it for a
/// direction the board refuses (long: CI machines are busy).
const MOVE_WAIT = 4000;

/// Waits until the page's move count is above `n` (`above` true) or equal
/// to it. (No predicate source evaluated in the page: its
/// Content-Security-Policy forbids eval.)
async function waitForMoves(page, above, n, timeout) {
  await page.waitForFunction(
    ([above, n]) => {
      const m = Number(document.querySelector("#board").dataset.moves);
      return above ? m > n : m === n;
    },
    [above, n],
    // Polled on a timer: requestAnimationFrame (the default) can stall in a
    // headless page that is not being painted.
    { timeout, polling: 50 },
  );
}

async function main() {
  const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
  if (!existsSync(executablePath)) throw new Error(`no browser at ${executablePath}`);
  const binary = serverBinary();
  if (!existsSync(binary)) throw new Error(`no server binary at ${binary}`);
  const userDataDir = mkdtempSync(join(tmpdir(), "web-e2e-"));
  const gamesFile = join(userDataDir, "games.json");
  let { server, address } = startServer(binary, gamesFile);
  let context;
  try {
    const url = await address;
    log(`server at ${url}`);
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      headless: true,
      viewport: { width: 520, height: 900 },
      args: [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
      ],
    });
    const page = context.pages()[0] || (await context.newPage());
    const errors = [];
    page.on("pageerror", (err) => errors.push(String(err)));
    page.on("console", (msg) => { if (msg.type() === "error") errors.push(msg.text()); });

    // The page loads and starts a game; a seed typed in starts that game.
    await page.goto(url);
    await page.waitForSelector("#board .tile");

    // The board comes first, near the top, as in the original: on a
    // desktop and on a phone only the title and the scores are above it,
    // it fits the window, and the controls are below it (under two rows of
    // controls, it once started 275 and 327 px down).
    for (const [width, height] of [[1280, 800], [390, 844]]) {
      await page.setViewportSize({ width, height });
      const box = await boardBox(page);
      assert.ok(box.top <= 120, `${width}x${height}: the board starts ${box.top} px down`);
      assert.ok(box.bottom <= height, `${width}x${height}: the board ends ${box.bottom} px down`);
      const controls = await page.$eval("#new-game", (el) => el.getBoundingClientRect().top);
      assert.ok(controls >= box.bottom, `${width}x${height}: controls above the board`);
    }
    await page.setViewportSize({ width: 520, height: 900 });

    await page.fill("#seed", "2048");
    await page.press("#seed", "Enter");
    // The first game also has no moves and two tiles: wait for the seeded one.
    await page.waitForFunction(() => document.querySelector("#game-seed").textContent === "2048");
    await page.waitForFunction(() => document.querySelector("#board").dataset.moves === "0");
    await page.waitForFunction(() => document.querySelectorAll("#board .tile[data-value]").length === 2);
    let before = await shown(page);
    assert.equal(before.seed, "2048");
    assert.equal(before.field, "", "the seed field is cleared once its game starts");
    assert.equal(before.score, 0);
    log(`new game, seed 2048: ${before.tiles.join(" ")}`);

    // "New game" starts a new random game each time, not the last seed again
    // (a player who asks for a new game does not want the same one).
    const seeds = new Set([before.seed]);
    for (let i = 0; i < 3; i++) {
      const last = (await shown(page)).seed;
      await page.click("#new-game");
      await page.waitForFunction((s) => document.querySelector("#game-seed").textContent !== s, last);
      seeds.add((await shown(page)).seed);
    }
    assert.equal(seeds.size, 4, `new games replayed a seed: ${[...seeds]}`);

    // A clicked button does not keep the focus: Enter and Space press
    // nothing then (else a player's Enter starts another game unasked).
    const clicked = await shown(page);
    assert.equal(await page.evaluate(() => document.activeElement === document.body), true,
      "the focus stayed on New game after a click");
    await page.keyboard.press("Enter");
    await page.keyboard.press(" ");
    await page.waitForTimeout(500);
    assert.equal((await shown(page)).seed, clicked.seed, "Enter or Space after a click started a new game");

    // A seed that is not a whole number is refused on the page, in its words
    // (not the server's parser's).
    for (const bad of ["-5", "1.5", "12a", "9007199254740992"]) {
      const last = (await shown(page)).seed;
      await page.fill("#seed", bad);
      await page.press("#seed", "Enter");
      await page.waitForFunction(() => document.querySelector("#status").textContent !== "");
      assert.match(await page.textContent("#status"), /^A seed is a whole number from 0 to /);
      assert.equal((await shown(page)).seed, last, `seed ${bad} started a game`);
    }
    await page.fill("#seed", "2048");
    await page.press("#seed", "Enter");
    await page.waitForFunction(() => document.querySelector("#game-seed").textContent === "2048");
    assert.equal(await page.textContent("#status"), "");

    // Keys move the tiles; keep pressing until a merge scores.
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    const keys = ["ArrowLeft", "ArrowDown", "ArrowRight", "ArrowUp", "a", "s", "d", "w"];
    let played = 0;
    for (let i = 0; i < 60; i++) {
      const now = await shown(page);
      if (now.score > 0 && played >= 4) break;
      await page.keyboard.press(keys[i % keys.length]);
      try {
        await waitForMoves(page, true, now.moves, MOVE_WAIT);
        const after = await shown(page);
        assert.notDeepEqual(after.tiles, now.tiles, "a move changed the tiles");
        played += 1;
      } catch {
        // That direction changed nothing: the server refused it.
      }
    }
    let state = await shown(page);
    assert.ok(played >= 4, `only ${played} key presses moved tiles`);
    assert.ok(state.score > 0, "the score rose");
    assert.ok(state.best >= state.score, "the best score follows the score");
    assert.match(await page.textContent("#score-add"), /^\+[0-9]+$/, "a merge shows +N");
    // The moves slid: the page counts the slides it animated.
    assert.ok(Number(await page.getAttribute("#board", "data-slides")) >= 1, "no move slid");
    log(`${played} moves by key, score ${state.score}`);

    // Slides look like the original's. Each move is
    // frozen 40 ms into its 100 ms slide: the player sees exactly the tiles
    // of the board before the move, each on top where it is (a tile sliding
    // left or up passed under the empty cells, washed out), the two tiles of
    // a merge still apart (not their sum, which showed during the slide), and
    // no new tile yet (it flashed in small). Once the animations end, every
    // cell shows the server's board. Left and up moves, merges among them,
    // are what went wrong: play until both were checked.
    const DIRECTION_OF = { ArrowLeft: "left", ArrowUp: "up", ArrowRight: "right", ArrowDown: "down" };
    let slidesChecked = 0;
    let leftUpMerges = 0;
    let leftUpSlides = 0;
    for (let i = 0; i < 60 && (slidesChecked < 8 || leftUpMerges < 2 || leftUpSlides < 4); i++) {
      const key = ["ArrowLeft", "ArrowUp", "ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"][i % 6];
      const now = await shown(page);
      await freezeNextSlide(page, 40);
      await page.keyboard.press(key);
      try {
        await waitForMoves(page, true, now.moves, MOVE_WAIT);
      } catch {
        continue; // That direction changed nothing.
      }
      const animations = await frozen(page);
      const after = await shown(page);
      const direction = DIRECTION_OF[key];
      assert.ok(animations > 0, `a ${direction} move did not slide`);
      const before = now.tiles.filter((v) => v > 0).sort((a, b) => a - b);
      const mid = await seenTiles(page);
      assert.deepEqual(mid, before,
        `40 ms into a ${direction} slide from ${now.tiles} the player sees ${mid}, not the tiles before it`);
      await page.evaluate(() => { for (const a of document.getAnimations()) a.finish(); });
      assert.deepEqual(await seenCells(page), after.tiles, `after a ${direction} slide from ${now.tiles}`);
      slidesChecked += 1;
      if (direction === "left" || direction === "up") {
        leftUpSlides += 1;
        if (after.score > now.score) leftUpMerges += 1;
      }
    }
    assert.ok(leftUpMerges >= 2 && leftUpSlides >= 4,
      `only ${leftUpSlides} left or up slides (${leftUpMerges} with a merge) checked`);
    log(`${slidesChecked} slides frozen midway and checked, ${leftUpMerges} left or up merges among them`);

    // Arrow keys play whatever control has the focus: the speed slider, the
    // AI menu and the seed field do not take them (else a key meant for the
    // board changes the speed, the AI or the seed instead).
    for (const control of ["#speed", "#preset", "#seed"]) {
      const now = await shown(page);
      const value = await page.$eval(control, (el) => el.value);
      await page.focus(control);
      let moved = false;
      for (const key of ["ArrowUp", "ArrowDown"]) {
        await page.keyboard.press(key);
        try {
          await waitForMoves(page, true, now.moves, MOVE_WAIT);
          moved = true;
          break;
        } catch {
          // That direction changed nothing.
        }
      }
      assert.ok(moved, `an arrow key with ${control} focused played no move`);
      assert.equal(await page.$eval(control, (el) => el.value), value, `${control} changed`);
    }

    // The speed slider's steps run 1 to 60 moves a second, without a jump.
    const speeds = [];
    for (let v = 0; v <= 6; v++) {
      await page.$eval("#speed", (el, v) => { el.value = String(v); el.dispatchEvent(new Event("input")); }, v);
      speeds.push(await page.textContent("#speed-label"));
    }
    // One move a second is "1 move/s", in the singular.
    assert.deepEqual(speeds, ["1 move/s", "2 moves/s", "5 moves/s", "10 moves/s", "20 moves/s",
      "40 moves/s", "60 moves/s"], "the speed steps");

    // Swipes move the tiles the way the keys do: each swipe's board is the
    // slide the rules give in its direction plus one spawned 2 or 4, and a
    // swipe that moves nothing was a direction the board refuses. A short
    // one (under 30 px) is a tap, not a move.
    let swiped = 0;
    const swipes = { left: [-90, 10], down: [-10, 90], right: [90, -10], up: [10, -90] };
    for (let round = 0; round < 3 && swiped < 3; round++) {
      for (const [direction, [dx, dy]] of Object.entries(swipes)) {
        const now = await shown(page);
        await swipe(page, dx, dy);
        const expected = slid(now.tiles, direction);
        try {
          await waitForMoves(page, true, now.moves, MOVE_WAIT);
        } catch {
          assert.deepEqual(expected, now.tiles, `a ${direction} swipe did not move a board it changes`);
          continue;
        }
        const after = await shown(page);
        const differ = after.tiles.map((v, i) => i).filter((i) => after.tiles[i] !== expected[i]);
        assert.equal(differ.length, 1, `a ${direction} swipe: ${now.tiles} -> ${after.tiles}`);
        assert.equal(expected[differ[0]], 0, "the spawn lands on an empty cell");
        assert.ok([2, 4].includes(after.tiles[differ[0]]), "the spawn is a 2 or a 4");
        swiped += 1;
      }
    }
    assert.ok(swiped >= 3, `only ${swiped} swipes moved tiles`);
    before = await shown(page);
    await swipe(page, 20, 5);
    await page.waitForTimeout(300);
    assert.equal((await shown(page)).moves, before.moves, "a 20 px swipe is not a move");
    log(`${swiped} moves by swipe, each the rules' slide plus a spawn`);

    // A hint names a direction and rates each one against the best, the
    // best first, with the raw values one click away (raw values alone are
    // huge and negative on late boards, and say nothing to a player).
    let answer = page.waitForResponse((res) => res.url().endsWith("/hint"));
    await page.click("#hint-button");
    await page.waitForSelector("#hint-direction");
    const hint = await page.textContent("#hint-direction");
    assert.match(hint, /(up|down|left|right)/);
    await checkHint(page, await (await answer).json());
    log(`hint: ${hint.trim()}`);

    // ...and so on a crowded late board, where the search's values are all
    // below 0: the game put at such a board (the API's restore), the
    // heuristic asked.
    const chosen = await page.$eval("#preset", (el) => el.value);
    const playedId = await page.evaluate(async (board) => {
      const id = state.id;
      render(await api("POST", "/api/games", { restore: { ...state.position, board }, keep_going: true }));
      return id;
    }, LATE_BOARD);
    await page.selectOption("#preset", "heuristic");
    answer = page.waitForResponse((res) => res.url().endsWith("/hint"));
    await page.click("#hint-button");
    const late = await (await answer).json();
    await page.waitForSelector("#hint-direction");
    const lateValues = Object.values(late.values).filter((v) => v !== null);
    assert.ok(lateValues.length >= 2 && lateValues.every((v) => v < 0), `late values: ${JSON.stringify(late.values)}`);
    await checkHint(page, late);
    // Where an endgame table decided, the values are odds of its goal, shown
    // as such (a hint as the API sends it; the test's server has no tables).
    await page.evaluate(() => renderHint({
      preset: "ntuple-deep", direction: "left", depth: 0, elapsed_ms: 3,
      values: { up: 0.5, down: null, left: 0.8731, right: 0.2 },
      shortfall: { up: 0.427, down: null, left: 0, right: 0.771 },
      endgame: "chain of 10 ending in 32", goal: 32,
    }));
    assert.match(await page.textContent("#hint .hint-head"), /odds of building a 32 \(endgame table: chain of 10/);
    assert.deepEqual(await hintRows(page), [
      { direction: "left", label: "87.3%" }, { direction: "up", label: "50.0%" },
      { direction: "right", label: "20.0%" }, { direction: "down", label: "does not move" },
    ]);
    // Back to the game played, and the AI chosen.
    await page.evaluate(async (id) => render(await api("GET", `/api/games/${id}`)), playedId);
    await page.selectOption("#preset", chosen);

    // Undo goes back one move.
    before = await shown(page);
    await page.click("#undo");
    await waitForMoves(page, false, before.moves - 1, 5000);
    // Enter and Space do not undo again (the Undo button keeps no focus).
    await page.keyboard.press("Enter");
    await page.keyboard.press(" ");
    await page.waitForTimeout(500);
    assert.equal((await shown(page)).moves, before.moves - 1, "Enter or Space after Undo undid again");
    log(`undo: ${before.moves} -> ${before.moves - 1} moves`);

    // A preset the server cannot play says what it lacks, in a word in the
    // menu and in the server's sentence when chosen: on a server started
    // without --endgame, the corner preset lacks its tables, not weights,
    // which it does not use.
    const presetList = await page.evaluate(() => api("GET", "/api/presets"));
    const lacking = presetList.presets.filter((p) => !p.available);
    for (const p of lacking) {
      assert.equal(await page.$eval(`#preset option[value="${p.name}"]`, (o) => o.textContent), `${p.name} (no ${p.missing})`);
      await page.selectOption("#preset", p.name);
      await page.click("#autoplay");
      await page.waitForFunction(() => document.querySelector("#status").textContent !== "", null, { polling: 50 });
      const refused = await page.textContent("#status");
      assert.ok(refused.length > 1 && refused.toLowerCase().startsWith(p.reason.slice(0, -1).toLowerCase()), `${p.name}: ${refused}`);
      assert.equal(await page.getAttribute("#autoplay", "aria-pressed"), "false");
      await page.evaluate(() => say(null));
    }
    const corner = presetList.presets.find((p) => p.name === "corner");
    assert.equal(corner.available, false);
    assert.equal(corner.missing, "tables");
    assert.match(corner.reason, /build them from the menu/);
    log(`unavailable presets: ${lacking.map((p) => `${p.name} (no ${p.missing})`).join(", ") || "none"}`);

    // The strongest player, one button away: the page offers the corner
    // tables under the AI menu, builds them in the background with a
    // progress bar, and then plays corner by default.
    assert.equal(await page.isVisible("#tables"), true);
    assert.match(await page.textContent("#tables-text"), /^the strongest player, corner, needs its tables: /);
    await page.click("#tables-build");
    await page.waitForFunction(() => document.querySelector("#tables").hidden, null, { timeout: 120000, polling: 100 });
    assert.equal(await page.inputValue("#preset"), "corner");
    assert.equal(await page.$eval(`#preset option[value="corner"]`, (o) => o.textContent), "corner");
    log("corner tables built from the page; corner is the default");

    // Autoplay, at full speed, until the score rises well above where it
    // was; then stop it.
    before = await shown(page);
    const ownBest = before.best;
    await page.selectOption("#preset", "fast");
    await page.$eval("#speed", (el) => { el.value = "6"; });
    await page.click("#autoplay");
    await page.waitForFunction(
      (score) => Number(document.querySelector("#score").textContent.replace(/,/g, "")) > score + 100,
      before.score,
      { timeout: 60000 },
    );
    if (untilTile > 0) {
      log(`autoplay until a ${untilTile} tile appears`);
      await page.waitForFunction(
        (tile) => [...document.querySelectorAll("#board .tile")].some((t) => Number(t.textContent) >= tile),
        untilTile,
        { timeout: 300000 },
      );
    }
    await page.click("#autoplay");
    assert.equal(await page.getAttribute("#autoplay", "aria-pressed"), "false");
    state = await shown(page);
    assert.ok(state.moves > before.moves, "autoplay moved");
    // The AI's game counts toward the AI's best, not the player's.
    assert.equal(state.best, ownBest, "autoplay's score is not the player's best");
    assert.ok(state.aiBest >= state.score, "the AI's best follows its game");
    log(`autoplay: score ${before.score} -> ${state.score}, ${state.moves} moves`);

    // An arrow key during autoplay takes the game back: autoplay stops and
    // the key plays.
    await page.$eval("#speed", (el) => { el.value = "0"; });
    await page.click("#autoplay");
    await page.waitForFunction(() => document.querySelector("#autoplay").getAttribute("aria-pressed") === "true");
    await page.locator("body").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("ArrowLeft");
    await page.waitForFunction(
      () => document.querySelector("#autoplay").getAttribute("aria-pressed") === "false",
      null,
      { timeout: MOVE_WAIT, polling: 50 },
    );
    await page.waitForFunction(
      () => /Autoplay paused/.test(document.querySelector("#status").textContent),
      null,
      { timeout: MOVE_WAIT, polling: 50 },
    );
    // ...said as a notice, not drawn as an error: nothing went wrong.
    assert.equal(await page.getAttribute("#status", "class"), "status notice");
    assert.notEqual(await page.$eval("#status", (el) => getComputedStyle(el).color), "rgb(179, 65, 43)");

    // Scores in the thousands have separators, Best too, to be read at a
    // glance.
    const bestKept = await page.evaluate(() => localStorage.getItem("web2048.best"));
    await page.evaluate(() => { localStorage.setItem("web2048.best", "1234567"); render(state); });
    assert.equal(await page.textContent("#best"), "1,234,567");
    await page.evaluate((v) => { localStorage.setItem("web2048.best", v || "0"); render(state); }, bestKept);

    // The game survives a reload and a closed tab (the page keeps its id).
    const kept = await shown(page);
    await page.reload();
    await page.waitForFunction((m) => document.querySelector("#board").dataset.moves === String(m), kept.moves);
    assert.deepEqual((await shown(page)).tiles, kept.tiles, "a reload keeps the game");
    const tab = await context.newPage();
    tab.on("pageerror", (err) => errors.push(String(err)));
    tab.on("console", (msg) => { if (msg.type() === "error") errors.push(msg.text()); });
    await page.close();
    await tab.goto(url);
    await tab.waitForFunction((m) => document.querySelector("#board").dataset.moves === String(m), kept.moves);
    assert.equal(await tab.textContent("#game-seed"), kept.seed, "a new tab comes back to the game");
    const pageNow = tab;

    // ...and a server restart: the server keeps its games in a file when it
    // stops (SIGINT) and reads it when it starts again, on the same port.
    const port = new URL(url).port;
    const stopServer = async () => {
      const exited = new Promise((done) => server.once("exit", done));
      server.kill("SIGINT");
      await exited;
    };
    // `forget`: without its games file, as a server that forgot its games
    // (idle 30 minutes, pushed out by others) is.
    const startAgain = async (forget) => {
      if (forget) rmSync(gamesFile, { force: true });
      ({ server, address } = startServer(binary, gamesFile, port));
      assert.equal(await address, url);
    };
    // The errors the browser logs for a request to a forgotten id (404) or
    // to a stopped server: expected where the test makes them.
    const expectedErrors = (from, what) => {
      const logged = errors.splice(from);
      assert.ok(logged.every((e) => what.test(e)), `errors: ${logged}`);
    };
    await stopServer();
    await startAgain(false);
    await pageNow.reload();
    await pageNow.waitForFunction((m) => document.querySelector("#board").dataset.moves === String(m), kept.moves);
    const restarted = await shown(pageNow);
    assert.deepEqual(restarted.tiles, kept.tiles, "a server restart keeps the game");
    assert.equal(restarted.score, kept.score);
    // ...and a server that forgot it: the page brings it back from the
    // position it keeps.
    await stopServer();
    await startAgain(true);
    let mark = errors.length;
    await pageNow.reload();
    await pageNow.waitForFunction((m) => document.querySelector("#board").dataset.moves === String(m), kept.moves);
    expectedErrors(mark, /status of 404/);
    const restored = await shown(pageNow);
    assert.deepEqual(restored.tiles, kept.tiles, "a forgotten game comes back from the browser");
    assert.equal(restored.score, kept.score);
    assert.equal(restored.seed, kept.seed);

    // ...and so without a reload: in the open tab the next key brings the
    // game back, with a short notice, and plays (rather than saying "no
    // such game (it may have expired)" at every key until a reload). So do
    // a hint and autoplay.
    const legalKey = () => pageNow.evaluate(() => ({ up: "ArrowUp", down: "ArrowDown", left: "ArrowLeft", right: "ArrowRight" })[state.legal[0]]);
    await pageNow.evaluate(() => say(null));
    await stopServer();
    await startAgain(true);
    mark = errors.length;
    let now = await shown(pageNow);
    await pageNow.locator("body").click({ position: { x: 5, y: 5 } });
    await pageNow.keyboard.press(await legalKey());
    await waitForMoves(pageNow, true, now.moves, MOVE_WAIT);
    assert.match(await pageNow.textContent("#status"), /^The server had forgotten this game/);
    assert.equal(await pageNow.getAttribute("#status", "class"), "status notice");
    assert.equal((await shown(pageNow)).seed, kept.seed, "the game that came back is the one played");
    expectedErrors(mark, /status of 404/);
    for (const action of ["hint", "autoplay"]) {
      await pageNow.evaluate(() => say(null));
      await stopServer();
      await startAgain(true);
      mark = errors.length;
      now = await shown(pageNow);
      if (action === "hint") {
        await pageNow.keyboard.press("h");
        await pageNow.waitForSelector("#hint-direction");
      } else {
        await pageNow.$eval("#speed", (el) => { el.value = "6"; });
        await pageNow.selectOption("#preset", "fast");
        await pageNow.click("#autoplay");
        await waitForMoves(pageNow, true, now.moves + 3, 30000);
        await pageNow.click("#autoplay");
      }
      assert.match(await pageNow.textContent("#status"), /^The server had forgotten this game/, action);
      expectedErrors(mark, /status of 404/);
    }

    // ...and a game forgotten while autoplay plays it (here deleted; pushed
    // out by other games alike): the stream ends with the API's code, the
    // page puts the game back and autoplay plays on.
    await pageNow.evaluate(() => say(null));
    await pageNow.$eval("#speed", (el) => { el.value = "0"; });
    await pageNow.click("#autoplay");
    await pageNow.waitForFunction(() => document.querySelector("#autoplay").getAttribute("aria-pressed") === "true");
    const forgottenId = await pageNow.evaluate(async () => {
      const id = state.id;
      await api("DELETE", `/api/games/${id}`);
      return id;
    });
    await pageNow.waitForFunction((id) => state.id !== id, forgottenId, { timeout: 10000, polling: 50 });
    await pageNow.waitForFunction(() => document.querySelector("#autoplay").getAttribute("aria-pressed") === "true", null, { polling: 50 });
    assert.match(await pageNow.textContent("#status"), /^The server had forgotten this game/);
    await pageNow.click("#autoplay");

    // A server that cannot be reached is said so in a sentence, not in
    // the browser's words ("Failed to fetch" says nothing of the server).
    await stopServer();
    mark = errors.length;
    await pageNow.keyboard.press(await legalKey());
    await pageNow.waitForFunction(() => document.querySelector("#status").classList.contains("error"), null, { polling: 50 });
    assert.equal(await pageNow.textContent("#status"), "The server cannot be reached: is it still running?");
    expectedErrors(mark, /ERR_CONNECTION_REFUSED/);
    // Once it is back (its games file kept the game), the next key plays
    // and the message goes.
    await startAgain(false);
    now = await shown(pageNow);
    await pageNow.keyboard.press(await legalKey());
    await waitForMoves(pageNow, true, now.moves, MOVE_WAIT);
    assert.equal(await pageNow.textContent("#status"), "");
    log(`the game survived a reload, a new tab, a server restart and a forgetful server (${kept.moves} moves)`);

    // On a phone, the "You reached 2048!" overlay fits the board: its text
    // on one line or wrapped inside, its buttons below it (not spilling past
    // the board on a narrow screen).
    await pageNow.setViewportSize({ width: 390, height: 844 });
    await pageNow.evaluate(() => render({ ...state, won: true, keep_going: false, over: false }));
    const box = async (sel) => pageNow.$eval(sel, (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; });
    const [board, text, buttons] = [await box("#board"), await box("#overlay-text"), await box(".overlay-buttons")];
    assert.ok(text.left >= board.left && text.right <= board.right, "the text fits the board's width");
    assert.ok(buttons.top >= text.bottom, `the buttons overlap the text: ${JSON.stringify([text, buttons])}`);
    assert.ok(buttons.bottom <= board.bottom, "the buttons stay on the board");
    mkdirSync(dirname(screenshotPath), { recursive: true });
    await pageNow.screenshot({ path: screenshotPath.replace(/\.png$/, "-phone-won.png"), fullPage: true });
    await pageNow.evaluate(() => render({ ...state, won: false }));

    // On a 320 px phone the page is no wider than the screen, even with a
    // 7-digit score and best, and the game's four controls share one row
    // (Hint once wrapped to a row of its own, and such a
    // score made the page 9 px too wide).
    await pageNow.setViewportSize({ width: 320, height: 640 });
    const kept320 = await pageNow.evaluate(() => ({
      score: state.score, best: localStorage.getItem(BEST_KEY), aiBest: localStorage.getItem(AI_BEST_KEY),
    }));
    await pageNow.evaluate(() => {
      localStorage.setItem(BEST_KEY, "1234567");
      render({ ...state, score: 1234567 });
    });
    const narrow = await pageNow.evaluate(() => {
      const box = (sel) => { const r = document.querySelector(sel).getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
      return {
        width: document.documentElement.scrollWidth,
        score: document.querySelector("#score").textContent,
        best: document.querySelector("#best").textContent,
        title: box(".title"),
        scores: box(".scores"),
        controls: ["#new-game", ".seed", "#undo", "#hint-button"].map(box),
      };
    });
    assert.equal(narrow.score, "1,234,567");
    assert.equal(narrow.best, "1,234,567");
    assert.ok(narrow.width <= 320, `320 px: the page is ${narrow.width} px wide`);
    assert.ok(narrow.title.right <= narrow.scores.left, `320 px: the title runs under the scores: ${JSON.stringify(narrow)}`);
    const [first] = narrow.controls;
    for (const c of narrow.controls) {
      const middle = (c.top + c.bottom) / 2;
      assert.ok(middle > first.top && middle < first.bottom, `320 px: the controls wrap: ${JSON.stringify(narrow.controls)}`);
    }
    await pageNow.screenshot({ path: screenshotPath.replace(/\.png$/, "-phone-320.png"), fullPage: true });
    await pageNow.evaluate((kept) => {
      localStorage.setItem(BEST_KEY, kept.best ?? "0");
      localStorage.setItem(AI_BEST_KEY, kept.aiBest ?? "0");
      render({ ...state, score: kept.score });
    }, kept320);
    await pageNow.setViewportSize({ width: 520, height: 900 });

    // Ask for one more hint so the screenshot shows the values.
    if (untilTile > 0) {
      await pageNow.selectOption("#preset", "heuristic");
      await pageNow.click("#hint-button");
      await pageNow.waitForSelector("#hint-direction");
    }
    // The page at rest: the last slide and "+N" over.
    await pageNow.evaluate(() => { for (const a of document.getAnimations()) a.finish(); });
    await pageNow.screenshot({ path: screenshotPath, fullPage: true });
    log(`screenshot: ${screenshotPath}`);
    assert.deepEqual(errors, [], `no errors in the page: ${errors.join(" / ")}`);
    log("passed");
  } finally {
    if (context) await context.close();
    // The server writes its games file as it stops: wait for it, so that
    // the folder is not removed while the file is being written.
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((done) => server.once("exit", done));
      server.kill();
      await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))]);
    }
    rmSync(userDataDir, { recursive: true, force: true });
  }
}

// A hung browser must not hang CI.
const guard = setTimeout(() => {
  console.error("e2e: timed out after 10 minutes");
  process.exit(1);
}, 10 * 60 * 1000);
guard.unref();

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`e2e FAILED: ${err.stack || err}`);
    process.exit(1);
  },
);
