// End-to-end test of the web frontend in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core; no browser download).
//
// It starts the server on a free port, loads the page, starts games (a
// typed seed, New game's random ones, bad seeds refused), plays with the
// keys and sees the tiles slide, the score and "+N" change, checks that arrow keys
// play whatever control has the focus and the speed slider's steps, plays by
// swipes (touch events) and checks each against the rules, asks for a hint,
// undoes, runs autoplay until the score rises (its score counts toward the
// AI's best, not the player's), takes the game back from autoplay with a
// key, reloads and reopens the page to the same game (also after a server
// restart, and from the browser's copy once the server forgot it), lays out the won
// overlay on a 390 px phone, and takes screenshots.
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
  const args = ["--port", String(port), "--search-ms", "60", "--games", gamesFile];
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
  return page.evaluate(() => ({
    tiles: [...document.querySelectorAll("#board .cell")].map((c) => Number(c.textContent || 0)),
    score: Number(document.querySelector("#score").textContent),
    best: Number(document.querySelector("#best").textContent),
    moves: Number(document.querySelector("#board").dataset.moves),
    seed: document.querySelector("#game-seed").textContent,
    field: document.querySelector("#seed").value,
    aiBest: Number(document.querySelector("#ai-best").textContent.replace(/,/g, "")),
  }));
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
    await page.fill("#seed", "2048");
    await page.press("#seed", "Enter");
    // The first game also has no moves and two tiles: wait for the seeded one.
    await page.waitForFunction(() => document.querySelector("#game-seed").textContent === "2048");
    await page.waitForFunction(() => document.querySelector("#board").dataset.moves === "0");
    await page.waitForFunction(() => document.querySelectorAll("#board .tile").length === 2);
    let before = await shown(page);
    assert.equal(before.seed, "2048");
    assert.equal(before.field, "", "the seed field is cleared once its game starts");
    assert.equal(before.score, 0);
    log(`new game, seed 2048: ${before.tiles.join(" ")}`);

    // "New game" starts a new random game each time, not the last seed again
    // (issue 34, item 2).
    const seeds = new Set([before.seed]);
    for (let i = 0; i < 3; i++) {
      const last = (await shown(page)).seed;
      await page.click("#new-game");
      await page.waitForFunction((s) => document.querySelector("#game-seed").textContent !== s, last);
      seeds.add((await shown(page)).seed);
    }
    assert.equal(seeds.size, 4, `new games replayed a seed: ${[...seeds]}`);

    // A seed that is not a whole number is refused on the page, in its words
    // (issue 34, item 7).
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
    // The moves slid: the page counts the slides it animated, and the
    // ghosts of merged tiles are gone once a slide is over.
    assert.ok(Number(await page.getAttribute("#board", "data-slides")) >= 1, "no move slid");
    await page.waitForTimeout(300);
    assert.equal(await page.locator("#ghosts .tile").count(), 0, "ghost tiles stayed");
    log(`${played} moves by key, score ${state.score}`);

    // Arrow keys play whatever control has the focus: the speed slider, the
    // AI menu and the seed field do not take them (issue 34, item 5).
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
      speeds.push(Number((await page.textContent("#speed-label")).split(" ")[0]));
    }
    assert.deepEqual(speeds, [1, 2, 5, 10, 20, 40, 60], "the speed steps");

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

    // A hint names a direction and values each one.
    await page.click("#hint-button");
    await page.waitForSelector("#hint-direction");
    const hint = await page.textContent("#hint-direction");
    assert.match(hint, /(up|down|left|right)/);
    assert.equal(await page.locator("#hint .values span").count(), 4);
    log(`hint: ${hint.trim()}`);

    // Undo goes back one move.
    before = await shown(page);
    await page.click("#undo");
    await waitForMoves(page, false, before.moves - 1, 5000);
    log(`undo: ${before.moves} -> ${before.moves - 1} moves`);

    // Autoplay, at full speed, until the score rises well above where it
    // was; then stop it.
    before = await shown(page);
    const ownBest = before.best;
    await page.selectOption("#preset", "fast");
    await page.$eval("#speed", (el) => { el.value = "6"; });
    await page.click("#autoplay");
    await page.waitForFunction(
      (score) => Number(document.querySelector("#score").textContent) > score + 100,
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
    const exited = new Promise((done) => server.once("exit", done));
    server.kill("SIGINT");
    await exited;
    ({ server, address } = startServer(binary, gamesFile, port));
    assert.equal(await address, url);
    await pageNow.reload();
    await pageNow.waitForFunction((m) => document.querySelector("#board").dataset.moves === String(m), kept.moves);
    const restarted = await shown(pageNow);
    assert.deepEqual(restarted.tiles, kept.tiles, "a server restart keeps the game");
    assert.equal(restarted.score, kept.score);
    // ...and a server that forgot it (its games file gone, as after 30
    // idle minutes): the page brings it back from the position it keeps.
    const stopped = new Promise((done) => server.once("exit", done));
    server.kill("SIGINT");
    await stopped;
    rmSync(gamesFile, { force: true });
    ({ server, address } = startServer(binary, gamesFile, port));
    assert.equal(await address, url);
    const before404 = errors.length;
    await pageNow.reload();
    await pageNow.waitForFunction((m) => document.querySelector("#board").dataset.moves === String(m), kept.moves);
    // The browser logs the server's 404 for the forgotten id: expected here.
    const logged = errors.splice(before404);
    assert.ok(logged.every((e) => /status of 404/.test(e)), `errors: ${logged}`);
    const restored = await shown(pageNow);
    assert.deepEqual(restored.tiles, kept.tiles, "a forgotten game comes back from the browser");
    assert.equal(restored.score, kept.score);
    assert.equal(restored.seed, kept.seed);
    log(`the game survived a reload, a new tab, a server restart and a forgetful server (${kept.moves} moves)`);

    // On a phone, the "You reached 2048!" overlay fits the board: its text
    // on one line or wrapped inside, its buttons below it (issue 34, item 6).
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
    await pageNow.setViewportSize({ width: 520, height: 900 });

    // Ask for one more hint so the screenshot shows the values.
    if (untilTile > 0) {
      await pageNow.selectOption("#preset", "heuristic");
      await pageNow.click("#hint-button");
      await pageNow.waitForSelector("#hint-direction");
    }
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
