// Many concurrent autoplay streams against a fresh server, and the server's
// peak resident memory and threads: the measurement behind docs/web.md's
// load figures (the memory and threads a crowd of autoplays costs).
//
//   node flood.mjs --preset ntuple-deep --streams 200 --seconds 30 [--warm]
//
// It starts the server (WEB_BIN, default target/release/web) on a free port,
// makes one game per stream, opens every stream at once ("cold": the preset's
// solver not built yet; --warm builds it first with one autoplay), reads
// /proc/PID/status every 100 ms while they run, closes them, and prints one
// line. Linux only (/proc).

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values: opts } = parseArgs({
  options: {
    preset: { type: "string", default: "heuristic" },
    streams: { type: "string", default: "200" },
    seconds: { type: "string", default: "30" },
    warm: { type: "boolean", default: false },
  },
});
const streams = Number(opts.streams);
const seconds = Number(opts.seconds);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const binary = process.env.WEB_BIN ?? resolve(root, "target/release/web");

const server = spawn(binary, ["--port", "0", "--no-games-file"], { stdio: ["ignore", "pipe", "inherit"] });
const base = await new Promise((ok, fail) => {
  server.stdout.once("data", (chunk) => {
    const m = /listening on (http:\/\/\S+)/.exec(String(chunk));
    m ? ok(m[1]) : fail(new Error(`unexpected: ${chunk}`));
  });
  server.once("exit", (code) => fail(new Error(`the server exited (${code})`)));
});

function status() {
  const text = readFileSync(`/proc/${server.pid}/status`, "utf8");
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(text)[1]);
  return { rss: field("VmRSS") / 1024, hwm: field("VmHWM") / 1024, threads: field("Threads") };
}

async function newGame(seed) {
  const res = await fetch(`${base}/api/games`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ seed }),
  });
  return (await res.json()).id;
}

/// Opens one autoplay stream; counts its move events; resolves on its end.
function open(id, counts) {
  return new Promise((done) => {
    const req = http.get(`${base}/api/games/${id}/autoplay?preset=${opts.preset}`, (res) => {
      if (res.statusCode !== 200) counts.refused += 1;
      res.setEncoding("utf8");
      let seen = false;
      res.on("data", (chunk) => {
        const moves = chunk.split("event: move").length - 1;
        counts.moves += moves;
        if (moves && !seen) {
          seen = true;
          counts.moving += 1;
        }
        if (chunk.includes("event: end") && chunk.includes('"error"')) counts.errors += 1;
      });
      res.on("end", done);
      res.on("error", done);
    });
    req.on("error", () => {
      counts.failed += 1;
      done();
    });
    counts.requests.push(req);
  });
}

if (opts.warm) {
  const counts = { moves: 0, moving: 0, errors: 0, refused: 0, failed: 0, requests: [] };
  const id = await newGame(0);
  open(id, counts);
  while (counts.moves === 0 && counts.failed === 0) await new Promise((r) => setTimeout(r, 50));
  counts.requests.forEach((r) => r.destroy());
}

const ids = [];
for (let i = 0; i < streams; i++) ids.push(await newGame(i + 1));
const before = status();
const counts = { moves: 0, moving: 0, errors: 0, refused: 0, failed: 0, requests: [] };
let peak = { rss: 0, threads: 0 };
const sampler = setInterval(() => {
  const s = status();
  peak = { rss: Math.max(peak.rss, s.rss), threads: Math.max(peak.threads, s.threads) };
}, 100);
const started = Date.now();
ids.forEach((id) => open(id, counts));
await new Promise((r) => setTimeout(r, seconds * 1000));
counts.requests.forEach((r) => r.destroy());
await new Promise((r) => setTimeout(r, 3000));
clearInterval(sampler);
const after = status();
server.kill();
console.log(
  `${opts.preset}, ${streams} streams, ${opts.warm ? "warm" : "cold"}, ${seconds} s: ` +
    `${counts.moves} moves, ${counts.moving} streams moved, ${counts.errors} errors, ` +
    `${counts.refused + counts.failed} refused; ` +
    `resident ${before.rss.toFixed(0)} MB before, peak ${Math.max(peak.rss, after.hwm).toFixed(0)} MB ` +
    `(VmHWM), ${after.rss.toFixed(0)} MB 3 s after; threads peak ${peak.threads}` +
    ` (${((Date.now() - started) / 1000).toFixed(0)} s)`,
);
process.exit(0);
