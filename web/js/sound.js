// Sounds: a move, a capture (Lines of Action, Bughouse; a Krux piece into the hole), a game
// start and low time on your own clock. They are synthesised with the Web Audio API (no audio
// files). **Sound** (the button `#sound`) mutes them, remembered in `localStorage` under
// `spelbord.muted`. No audio context exists before the user has interacted with the page:
// browsers refuse to start one earlier (and warn about it), so until then nothing is played.

import { $ } from "./dom.js";
import { t } from "./i18n.js";

const MUTE_KEY = "spelbord.muted";
const toggle = $("sound");
let muted = localStorage.getItem(MUTE_KEY) === "1";
let audio = null;       // the AudioContext, made at the first sound after a gesture
let interacted = false; // a click, tap or key on the page (where `navigator.userActivation` is missing)

for (const type of ["click", "keydown", "touchend"]) {
  addEventListener(type, () => { interacted = true; }, { capture: true, once: true, passive: true });
}

/** The audio context, or null while the page has had no user gesture yet. */
function context() {
  const active = navigator.userActivation ? navigator.userActivation.hasBeenActive : interacted;
  if (!active || typeof AudioContext === "undefined") return null;
  if (!audio) audio = new AudioContext();
  if (audio.state === "suspended") audio.resume().catch(() => {});
  return audio;
}

/** One tone: a wave of `type` gliding from `from` to `to` Hz, starting `at` s from now, `length` s long. */
function tone(ctx, { type = "sine", from, to = from, at = 0, length, volume }) {
  const start = ctx.currentTime + at;
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(from, start);
  if (to !== from) osc.frequency.exponentialRampToValueAtTime(to, start + length);
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.exponentialRampToValueAtTime(volume, start + 0.005);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

/** A short burst of noise through a band-pass filter: the knock of a piece taken. */
function knock(ctx, { at = 0, length, centre, volume }) {
  const start = ctx.currentTime + at;
  const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * length), ctx.sampleRate);
  const data = buffer.getChannelData(0);
  for (let i = 0; i < data.length; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 3;
  const source = ctx.createBufferSource();
  source.buffer = buffer;
  const filter = ctx.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = centre;
  const gain = ctx.createGain();
  gain.gain.value = volume;
  source.connect(filter).connect(gain).connect(ctx.destination);
  source.start(start);
}

const SOUNDS = {
  // A wooden "tock".
  move(ctx) {
    tone(ctx, { type: "triangle", from: 520, to: 260, length: 0.08, volume: 0.3 });
    knock(ctx, { length: 0.03, centre: 1800, volume: 0.25 });
  },
  // A heavier double knock.
  capture(ctx) {
    tone(ctx, { type: "triangle", from: 360, to: 120, length: 0.14, volume: 0.4 });
    knock(ctx, { length: 0.06, centre: 900, volume: 0.5 });
    knock(ctx, { at: 0.07, length: 0.05, centre: 1400, volume: 0.35 });
  },
  // Two rising notes.
  start(ctx) {
    tone(ctx, { from: 660, length: 0.16, volume: 0.22 });
    tone(ctx, { from: 880, at: 0.14, length: 0.26, volume: 0.22 });
  },
  // Three short high beeps.
  low(ctx) {
    for (const at of [0, 0.16, 0.32]) tone(ctx, { type: "square", from: 1100, at, length: 0.08, volume: 0.08 });
  },
};

/** Plays a sound (`move`, `capture`, `start`, `low`) unless muted or before any user gesture. */
export function sound(kind) {
  if (muted || !SOUNDS[kind]) return;
  const ctx = context();
  if (ctx) SOUNDS[kind](ctx);
}

/** The pieces on a Bughouse board (`rows` of 8 characters, "." empty). */
const chessPieces = (rows) => rows.flat().join("").replace(/[^a-z]/gi, "").length;
/** Krux pieces fallen into the hole. */
const inHole = (state) => state.pieces.filter((p) => p.square === "hole").length;

/**
 * The sound of a move in `game` from state `before` to `after`: `capture` when something was
 * taken (fewer pieces on a board, or one more in Krux's hole), else `move`.
 */
export function moveSound(game, before, after) {
  try {
    if (game === "lines-of-action") return after.pieces.black + after.pieces.white < before.pieces.black + before.pieces.white ? "capture" : "move";
    if (game === "krux") return inHole(after) > inHole(before) ? "capture" : "move";
    if (game === "bughouse") return ["A", "B"].some((b) => chessPieces(after[b].board) < chessPieces(before[b].board)) ? "capture" : "move";
  } catch { /* a state of another shape: an ordinary move */ }
  return "move";
}

// Low time: the seats (of ours) already warned in this game, and each one's time at the last look.
let warned = new Set();
let lastLeft = {};

/**
 * Warns once per game and seat when our own running clock falls under 10 s (called with every
 * tick): `seats` are ours, `leftOf(seat)` the time left on a running clock (else null), `game`
 * a key of the game being played.
 */
export function lowTimeCheck(game, seats, leftOf) {
  for (const seat of seats) {
    const left = leftOf(seat);
    const key = `${game}:${seat}`;
    if (left != null && left < 10000 && lastLeft[key] >= 10000 && !warned.has(key)) {
      warned.add(key);
      sound("low");
    }
    lastLeft[key] = left;
  }
  if (warned.size > 50) [warned, lastLeft] = [new Set(), {}];
}

function show() {
  toggle.textContent = muted ? t("table.sound.off") : t("table.sound.on");
  toggle.setAttribute("aria-pressed", String(!muted));
  toggle.title = muted ? t("table.sound.off_title") : t("table.sound.on_title");
}

toggle.addEventListener("click", () => {
  muted = !muted;
  localStorage.setItem(MUTE_KEY, muted ? "1" : "0");
  show();
  if (!muted) sound("move"); // a sample of what is heard
});
show();
