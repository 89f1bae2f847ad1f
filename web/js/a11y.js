// What the page says to screen readers on its own: one polite live region per page, which
// `announce` fills with a sentence (a move, a game's end) in the page's language.

let region = null;

/** The page's live region, made on first use (visually hidden, read politely). */
function liveRegion() {
  if (region && region.isConnected) return region;
  region = document.getElementById("announcer");
  if (!region) {
    region = document.createElement("div");
    region.id = "announcer";
    region.className = "visually-hidden";
    region.setAttribute("aria-live", "polite");
    region.setAttribute("aria-atomic", "true");
    document.body.append(region);
  }
  return region;
}

/** Says `text` to screen readers (replacing what was said before). */
export function announce(text) {
  const live = liveRegion();
  // Cleared first, so the same sentence twice is read twice.
  live.textContent = "";
  requestAnimationFrame(() => {
    live.textContent = text;
  });
}
