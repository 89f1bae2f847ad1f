// The harness of the end-to-end tests: the server's address (the first argument of run.mjs;
// the rest name the scenarios to run), browser sessions watched for errors, and the steps the
// scenarios in scenarios/ share. A scenario module imports what it needs from here, or uses
// the harness object run.mjs passes as its second argument.

import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const [base, ...only] = process.argv.slice(2);
if (!base || !/^https?:\/\/[^/]+$/.test(base.replace(/\/$/, ""))) {
  console.error("usage: node tests/e2e/run.mjs <base-url, e.g. http://127.0.0.1:8080> [scenario ...]");
  process.exit(2);
}
export const BASE = base.replace(/\/$/, "");
export const ARTIFACTS = resolve(process.env.E2E_ARTIFACTS || join(REPO, "target", "e2e"));
export const DOCS_SHOTS = process.env.E2E_DOCS_SCREENSHOTS === "1" ? join(REPO, "docs", "screenshots") : null;
/** Longest any single wait may take (a guard against hangs, not a measure of speed). */
export const WAIT_MS = 15_000;
/** Longest the whole suite may take before it gives up. */
export const SUITE_MS = 15 * 60_000;

export function findChromium() {
  if (process.env.CHROMIUM) return process.env.CHROMIUM;
  if (existsSync("/usr/bin/chromium")) return "/usr/bin/chromium";
  try {
    return execFileSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

// ------------------------------------------------------------------ the harness

/**
 * Runs in every page before its own scripts: notes the time of each click or tap on a board
 * square, and the time each Gomoku point gets a stone in the DOM, so that the latency from a
 * click on one page to the stone on the opponent's can be measured (both pages' clocks are the
 * same machine's: `performance.timeOrigin + performance.now()`).
 */
export function instrument() {
  const now = () => performance.timeOrigin + performance.now();
  window.__e2e = { clicks: [], seen: [], arrived: [] };
  // Each `moved` event's arrival, before the page handles it (a listener added in the
  // constructor runs before the page's own `onmessage`).
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        const t = now();
        if (typeof event.data === "string" && event.data.includes('"moved"')) {
          try {
            const message = JSON.parse(event.data);
            if (message.type === "moved" && message.move && message.move.at) window.__e2e.arrived.push({ at: message.move.at, t });
          } catch { /* not ours to judge */ }
        }
      });
    }
  };
  document.addEventListener("click", (event) => {
    const square = event.target.closest && event.target.closest("[data-at], [data-sq]");
    if (square) window.__e2e.clicks.push({ at: square.dataset.at || square.dataset.sq, t: now() });
  }, true);
  new MutationObserver((records) => {
    const t = now();
    for (const record of records) {
      const stone = record.target.dataset.stone;
      if (stone && stone !== ".") window.__e2e.seen.push({ at: record.target.dataset.at, stone, t });
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-stone"] });
}

/** One scenario's browser contexts, watched for errors, and its screenshots. */
export class Session {
  constructor(browser, name) {
    this.browser = browser;
    this.name = name;
    this.pages = [];
    this.problems = [];
    this.closing = false;
  }

  /** A fresh browser profile (its own player) with one page; `options` as for newContext. */
  async player(label, options = {}) {
    const context = await this.browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
    await context.addInitScript(instrument);
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const problem = (text) => { if (!this.closing) this.problems.push(`${label}: ${text}`); };
    page.on("console", (msg) => { if (msg.type() === "error") problem(`console error: ${msg.text()}`); });
    page.on("pageerror", (err) => problem(`page error: ${err.message}`));
    page.on("requestfailed", (req) => problem(`request failed: ${req.url()} ${req.failure() ? req.failure().errorText : ""}`));
    page.on("response", (res) => { if (res.status() >= 400) problem(`HTTP ${res.status()}: ${res.url()}`); });
    page.on("dialog", (dialog) => dialog.accept());
    page.label = label;
    this.pages.push(page);
    return page;
  }

  /** Saves a screenshot of `page` as an artifact: `{scenario}-{label}-{what}.png`. */
  async shot(page, what) {
    const file = join(ARTIFACTS, `${this.name}-${page.label}-${what}.png`.replace(/[^a-zA-Z0-9.-]+/g, "-"));
    await page.screenshot({ path: file, fullPage: true });
  }

  /** With E2E_DOCS_SCREENSHOTS=1, saves the README's picture of a game: its board and status. */
  async docShot(page, name) {
    if (DOCS_SHOTS) await page.locator("main.play").screenshot({ path: join(DOCS_SHOTS, `${name}.png`) });
  }

  async close() {
    this.closing = true;
    for (const page of this.pages) await page.context().close().catch(() => {});
  }
}

export const until = (page, fn, arg) => page.waitForFunction(fn, arg, { timeout: WAIT_MS });

/** Fails the scenario with `message` unless `ok`. */
export function check(ok, message) {
  if (!ok) throw new Error(message);
}

/** Creates a table over the API and returns its id. */
export async function createTable(game, settings) {
  const response = await fetch(`${BASE}/api/tables`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ game, settings }),
  });
  const body = await response.text();
  check(response.status === 201, `POST /api/tables answered ${response.status}: ${body}`);
  return JSON.parse(body).id;
}

/** Opens a table's page and waits until it is connected and shows the seats. */
export async function open(page, path) {
  await page.goto(`${BASE}${path}`);
  await until(page, () => document.getElementById("conn").hidden && document.querySelector("#seats li"));
}

/** Sits down as `name` in the seat of `role` (X, O, white, A-black, …). */
export async function sit(page, name, role) {
  await page.fill("#name", name);
  await page.click(`#seats button[aria-label="Sit here as ${role}"]`);
  await until(page, () => document.querySelector("#seats .badge"));
}

/** Waits until it is this page's turn. */
export const myTurn = (page) => until(page, () => document.getElementById("turn").classList.contains("mine"));

/** The middle of the element `selector` on `page`, in page pixels. */
export async function centre(page, selector) {
  const box = await page.locator(selector).boundingBox();
  check(box, `${selector} is shown`);
  return [box.x + box.width / 2, box.y + box.height / 2];
}

/**
 * Drags with the mouse from the element `from` to the element `to` (a selector, or a function
 * called once the drag has begun, which returns it); `during(page)` runs mid-drag.
 */
export async function drag(page, from, to, during = async () => {}) {
  const [x, y] = await centre(page, from);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + 12, y + 12, { steps: 3 }); // past the 6 px that tell a drag from a click
  await during(page);
  const target = typeof to === "function" ? await to(page) : to;
  const [tx, ty] = await centre(page, target);
  await page.mouse.move(tx, ty, { steps: 8 });
  await page.mouse.up();
}

/**
 * A new `game` table (seats chosen) with two players on pages of their own, Ann in the seat of
 * `first` and Bo in that of `second`; waits until the game has started for Ann.
 */
export async function twoSeated(s, game, [first, second], settings = {}) {
  const id = await createTable(game, { seating: "chosen", ...settings });
  const ann = await s.player(first);
  const bo = await s.player(second);
  await open(ann, `/t/${id}`);
  await open(bo, `/t/${id}`);
  await sit(ann, "Ann", first);
  await sit(bo, "Bo", second);
  await until(ann, () => document.getElementById("turn").textContent && !/Waiting/.test(document.getElementById("turn").textContent));
  return [ann, bo];
}

/** Waits until the Gomoku point `at` shows `stone` on every page given. */
export async function stoneOn(pages, at, stone) {
  for (const page of pages) {
    await until(page, ([at, stone]) => {
      const cell = document.querySelector(`#board .cell[data-at="${at}"]`);
      return cell && cell.dataset.stone === stone;
    }, [at, stone]);
  }
}

/**
 * For each click on `mover`: the time to the stone appearing on `watcher` (`total`), split
 * into the time until `watcher` received the `moved` event (`arrived`) and the time it took
 * to show it (`shown`), in ms.
 */
export async function clickToSeen(mover, watcher) {
  const { clicks } = await mover.evaluate(() => window.__e2e);
  const { seen, arrived } = await watcher.evaluate(() => window.__e2e);
  return clicks.flatMap((click) => {
    const shown = seen.find((s) => s.at === click.at && s.t >= click.t);
    const came = arrived.find((s) => s.at === click.at && s.t >= click.t);
    return shown && came ? [{ total: shown.t - click.t, arrived: came.t - click.t, shown: shown.t - came.t }] : [];
  });
}

/** Nearest-rank percentile of `values` (0 < p ≤ 100). */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}


/** What the suite writes to summary.json (scenarios add figures such as the latency). */
export const summary = { base: BASE, scenarios: [], latency: null };
