// End-to-end tests of spelbord's browser client in real headless Chromium (Debian's `chromium`,
// driven by playwright-core; never a browser download). Each scenario opens fresh browser
// contexts (each its own localStorage, so its own player) against a running server, plays as
// people would, and fails on any console error, page error, failed request or HTTP error.
//
//   node tests/e2e/run.mjs http://127.0.0.1:8080 [scenario ...]
//
// The scenarios are the default exports of the modules in scenarios/ (name → scenario, or
// name → [title, scenario]); a scenario gets its Session and the harness (harness.mjs).
// `cargo test --test browser` starts a server with its own database and runs this (see
// README.md beside this file). Environment:
//   CHROMIUM             the browser binary (default: /usr/bin/chromium, else `chromium` on PATH)
//   E2E_ARTIFACTS        where screenshots and the summary go (default: target/e2e)
//   E2E_DOCS_SCREENSHOTS set to 1 to also write the README's pictures to docs/screenshots/
//
// The last line is "e2e: N passed, N failed"; the exit code is 0 only when all passed.

import { chromium } from "playwright-core";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as harness from "./harness.mjs";

const { BASE, ARTIFACTS, DOCS_SHOTS, SUITE_MS, Session, findChromium, only, summary } = harness;

const here = dirname(fileURLToPath(import.meta.url));
const SCENARIOS = {};
for (const file of readdirSync(join(here, "scenarios")).filter((f) => f.endsWith(".mjs")).sort()) {
  const module = await import(pathToFileURL(join(here, "scenarios", file)).href);
  for (const [name, entry] of Object.entries(module.default)) {
    if (name in SCENARIOS) throw new Error(`scenario ${name} is defined twice (scenarios/${file})`);
    SCENARIOS[name] = Array.isArray(entry) ? entry : [name, entry];
  }
}

// ------------------------------------------------------------------ main

for (const name of only) {
  if (!(name in SCENARIOS)) {
    console.error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(", ")}`);
    process.exit(2);
  }
}
mkdirSync(ARTIFACTS, { recursive: true });
if (DOCS_SHOTS) mkdirSync(DOCS_SHOTS, { recursive: true });
const executablePath = findChromium();
if (!executablePath) {
  console.error("e2e: no Chromium found: apt-get install chromium, or set CHROMIUM");
  process.exit(2);
}
const guard = setTimeout(() => {
  console.error(`e2e: the suite took longer than ${SUITE_MS / 1000} s; giving up`);
  process.exit(1);
}, SUITE_MS);

const started = performance.now();
const browser = await chromium.launch({
  executablePath,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
});
console.log(`e2e: ${executablePath} (${browser.version()}) against ${BASE}; artifacts in ${ARTIFACTS}`);
let passed = 0;
let failed = 0;
for (const [name, [title, scenario]] of Object.entries(SCENARIOS)) {
  if (only.length && !only.includes(name)) continue;
  const session = new Session(browser, name);
  const t0 = performance.now();
  let error = null;
  try {
    await scenario(session, harness);
  } catch (err) {
    error = err;
  }
  if (error) {
    // What every page showed when it failed.
    for (const page of session.pages) await session.shot(page, "failed").catch(() => {});
  }
  const problems = [...session.problems];
  await session.close();
  const seconds = (performance.now() - t0) / 1000;
  const ok = !error && problems.length === 0;
  if (ok) passed += 1;
  else failed += 1;
  summary.scenarios.push({ name, ok, seconds: Number(seconds.toFixed(2)) });
  console.log(`e2e: ${ok ? "ok  " : "FAIL"} ${name} — ${title} (${seconds.toFixed(1)} s)`);
  if (error) console.log(`  ${String(error.stack || error).split("\n").slice(0, 6).join("\n  ")}`);
  for (const problem of problems) console.log(`  ${problem}`);
}
await browser.close();
clearTimeout(guard);
summary.seconds = Number(((performance.now() - started) / 1000).toFixed(1));
writeFileSync(join(ARTIFACTS, "summary.json"), `${JSON.stringify(summary, null, 2)}\n`);
console.log(`e2e: ${summary.seconds} s in all; summary in ${join(ARTIFACTS, "summary.json")}`);
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
