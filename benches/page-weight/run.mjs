// Page weight: what each page costs a first visit on the wire (gzip, as the server sends it to a
// browser that accepts it) and as files, in every language, measured by loading it in headless
// Chromium (Debian's, driven by the browser tests' playwright-core) against a running server and
// adding up every response the page asked for (the page, its modules, style sheets and catalogue).
//
//   (cd tests/e2e && npm ci)      # once: playwright-core
//   node benches/page-weight/run.mjs http://127.0.0.1:8080 [--langs en,sv,nb]
//
// Prints one line per page and language: requests, bytes on the wire (bodies as sent), bytes as
// files (bodies decoded). The figures and the command that made them are in docs/benchmarks.md
// ("Page weight").

import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(join(repo, "tests/e2e/package.json"));
const { chromium } = require("playwright-core");

const args = process.argv.slice(2);
const base = (args.find((a) => /^https?:/.test(a)) || "http://127.0.0.1:8080").replace(/\/$/, "");
const langsArg = args.indexOf("--langs");
const langs = langsArg >= 0 ? args[langsArg + 1].split(",") : ["en", "sv", "nb"];

/** A new table of `game`: its page's path, and how the output names it. */
async function tablePage(game) {
  const created = await fetch(`${base}/api/tables`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ game, settings: {} }),
  }).then((r) => r.json());
  return [`/t/${created.id}`, `/t/{${game}}`];
}
const pages = [["/"], ["/new"], ["/stats"], await tablePage("gomoku"), await tablePage("bughouse"),
  ["/rules/gomoku"], ["/rules/krux"]];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run"],
});
console.log("page\tlang\trequests\twire_bytes\tfile_bytes");
for (const [path, shown = path] of pages) {
  for (const lang of langs) {
    const context = await browser.newContext(); // a first visit: nothing cached
    const page = await context.newPage();
    const responses = [];
    page.on("response", (response) => responses.push(response));
    const url = `${base}${path}${path.includes("?") ? "&" : "?"}lang=${lang}`;
    const answer = await page.goto(url, { waitUntil: "networkidle" });
    if (!answer || answer.status() >= 400) {
      console.log(`${shown}\t${lang}\t-\t-\t- (HTTP ${answer ? answer.status() : "none"})`);
      await context.close();
      continue;
    }
    let wire = 0;
    let files = 0;
    let count = 0;
    for (const response of responses) {
      if (!response.url().startsWith(base)) continue;
      const sizes = await response.request().sizes();
      const body = await response.body().catch(() => Buffer.alloc(0));
      wire += sizes.responseBodySize;
      files += body.length;
      count += 1;
    }
    console.log(`${shown}\t${lang}\t${count}\t${wire}\t${files}`);
    await context.close();
  }
}
await browser.close();
