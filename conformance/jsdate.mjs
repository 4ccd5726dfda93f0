// What JavaScript (V8, as in Node 20) computes for `new Date(value).getTime()`, the
// number Pi stamps on the messages it builds from an entry's `timestamp`.
//
// Values travel as JSON Lines: one raw JSON text per line (so "-0", "1e400" or
// "12345678901234567890" reach JSON.parse exactly as written in a session file).
// Split on "\n" only: JSON.stringify leaves U+2028/U+2029 unescaped.
//
//   node conformance/jsdate.mjs generate [--seed S] [--count N]   raw values, one a line
//   node conformance/jsdate.mjs record [FILE]                     [value,result] lines
//   node conformance/jsdate.mjs sample [--seed S] [--count N]     generate + record
//   node conformance/jsdate.mjs golden                            rewrites data/jsdate/cases.jsonl
//   node conformance/jsdate.mjs check [FILE]                      re-computes a golden file
//   node conformance/jsdate.mjs zones [--stdout]                  rewrites data/jsdate/zones.json
//
// `record` reads FILE (or stdin) and writes, for each value, `[value,result]` where result
// is the number, null for NaN, or {"throws":"TypeError"} when `new Date(value)` throws.
// TZ is UTC: every Pi golden is recorded that way. `zones` records date-times without an
// offset (local time) under other values of TZ (Node resets its zone when TZ changes).
process.env.TZ = "UTC";

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO } from "./paths.mjs";

export const GOLDEN_SEED = 20260115;
export const GOLDEN_COUNT = 30000;
const GOLDEN = join(REPO, "data", "jsdate", "cases.jsonl");
const ZONES_GOLDEN = join(REPO, "data", "jsdate", "zones.json");

// ---------------------------------------------------------------------------
// Local time in several zones (TZ), DST edges included

/** TZ values: zones with DST both ways, half-hour and 45-minute offsets, negative DST
 * (Dublin), a skipped day (Apia 2011), and values ICU does not take as a zone. */
export const TZ_VALUES = [
  "UTC", "Europe/Berlin", ":Europe/Berlin", "America/New_York", "Australia/Sydney", "Australia/Lord_Howe",
  "Pacific/Chatham", "America/Sao_Paulo", "Africa/Casablanca", "Asia/Kolkata", "Asia/Tehran",
  "Europe/Dublin", "America/St_Johns", "Pacific/Apia", "Pacific/Kiritimati", "Europe/London",
  "EST5EDT", "PST8PDT", "CET", "EET", "MST", "HST", "", "Bogus/Zone", "CET-1CEST,M3.5.0,M10.5.0/3",
];
/** Days around DST changes (2026 in both hemispheres, history) and far dates. */
const ZONE_DAYS = [
  "2026-01-15", "2026-07-01", "2026-03-29", "2026-10-25", "2026-03-08", "2026-11-01", "2026-04-05",
  "2026-10-04", "2026-09-27", "2026-02-15", "2026-03-22", "2018-11-04", "2019-02-16", "2011-12-29",
  "2011-12-30", "2011-12-31", "1970-01-01", "1969-12-31", "1916-05-01", "1900-01-01", "1800-06-15",
  "0001-01-01", "2100-03-28", "2400-10-31",
];
const ZONE_EXTRA = [
  "+275760-09-12T23:00:00", "+275760-09-13T00:00:00", "-271821-04-20T00:00:00", "-271821-04-19T23:00:00",
  "+050000-07-01T12:00:00", "-001000-06-01T00:00:00", "2026-07-01T12:00:00Z", "2026-07-01T12:00:00+05:00",
  "2026-07-01", "2026-07", "Jul 1 2026", "Jul 1 2026 12:00 GMT", "7/1/2026, 12:00:00 PM",
];
const SHORT_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

export function zoneValues() {
  const values = [...ZONE_EXTRA];
  for (const day of ZONE_DAYS) {
    const [y, m, d] = day.split("-");
    for (let minutes = -30; minutes <= 5 * 60; minutes += 15) {
      const shifted = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d), 0, minutes));
      const iso = shifted.toISOString().slice(0, 19);
      const hh = iso.slice(11, 13), mm = iso.slice(14, 16);
      values.push(iso);
      if (minutes % 60 === 0) {
        values.push(`${iso.slice(0, 10)} ${hh}:${mm}`); // space instead of T: still ISO, local
        values.push(`${SHORT_MONTHS[shifted.getUTCMonth()]} ${shifted.getUTCDate()} ${shifted.getUTCFullYear()} ${hh}:${mm}:00`);
      }
    }
  }
  return [...new Set(values)];
}

/** {node, values, zones: {TZ: [time or null, ...]}}, each zone recorded in this process. */
export function recordZones() {
  const values = zoneValues();
  const zones = {};
  for (const zone of TZ_VALUES) {
    process.env.TZ = zone;
    zones[zone] = values.map((v) => {
      const t = new Date(v).getTime();
      return Number.isNaN(t) ? null : t;
    });
  }
  process.env.TZ = "UTC";
  return { node: process.version, icu: process.versions.icu, tz: process.versions.tz, values, zones };
}

// ---------------------------------------------------------------------------
// Oracle

export function timeOf(value) {
  try {
    const t = new Date(value).getTime();
    return Number.isNaN(t) ? null : t;
  } catch (error) {
    return { throws: error.constructor.name };
  }
}

export function recordLines(rawLines) {
  return rawLines.map((raw) => `[${raw},${JSON.stringify(timeOf(JSON.parse(raw)))}]`);
}

// ---------------------------------------------------------------------------
// Seeded generator (mulberry32)

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
  "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const ZONES = ["Z", "z", "UT", "UTC", "GMT", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST",
  "PDT", "ut", "utc", "gmt", "est", "pdt", "Utc", "UTC+1", "GMT+0100", "GMT-08:00", "GMT+5:30",
  "UTC-8", "GMT+12345", "+0000", "-0800", "+01:00", "-8", "+123", "+1", "+24:00", "CET", "BST",
  "utcx", "gmtz", "PSTX", "Zulu"];
// JavaScript's WhiteSpace and LineTerminator, then look-alikes that are not white space.
const SPACES = ["\t", "\n", "\v", "\f", "\r", " ", "\u00a0", "\u1680", "\u2000", "\u2001",
  "\u2002", "\u2003", "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200a",
  "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff"];
const NOT_SPACES = ["\u0085", "\u180e", "\u200b", "\u0000", "\u00ad", "\u2060", "\u0001", "\u001f"];
const WORDS = ["at", "on", "the", "noon", "today", "T", "t", "Z", "am", "pm", "AM", "PM", "a.m.",
  "Jan", "jan", "JANUARY", "Janx", "ja", "Sept", "Mayday", "Decimal", "juneau", "Mon", "Thu",
  "Thursday", "xyz", "Infinity", "NaN", "null", "undefined", "true", "é", "日", "\u2028",
  "[object", "Object]", "(", ")", "((", "))", "(x)", "(a(b)c)", "(unclosed"];
const UNICODE = ["é", "ß", "Ж", "日", "😀", "\ud800", "\udfff", "٣", "１", "Ⅻ", "ſ", "K", "İ"];

export function makeGenerator(seed) {
  const r = rng(seed);
  const int = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  const chance = (p) => r() < p;
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const pad = (n, w) => String(n).padStart(w, "0");
  const digits = (n) => Array.from({ length: n }, () => int(0, 9)).join("");
  const caseMix = (s) =>
    [...s].map((c) => (chance(0.5) ? c.toUpperCase() : c.toLowerCase())).join("");

  const MAX = 8.64e15;
  function randomMs() {
    const k = r();
    if (k < 0.5) return int(0, 2.5e12) * (chance(0.9) ? 1 : -1); // 1890..2049
    if (k < 0.6) return int(-MAX, MAX);
    if (k < 0.7) return (chance(0.5) ? MAX : -MAX) - (chance(0.5) ? 1 : -1) * int(0, 9e10);
    if (k < 0.8) return int(-62167219200000 - 4e11, -62167219200000 + 4e11); // around year 0
    return int(-2e13, 3e11);
  }

  function isoYear() {
    const k = r();
    if (k < 0.55) return pad(chance(0.7) ? int(1950, 2100) : int(0, 9999), 4);
    if (k < 0.62) return pick(["0000", "0001", "0030", "0049", "0050", "0099", "0100", "9999", "1970"]);
    if (k < 0.85) {
      const sign = pick(["+", "-"]);
      const y = chance(0.5) ? pick([0, 1, 271821, 271822, 275760, 275761, 999999, 2026, 10000]) : int(0, 999999);
      return sign + pad(y, 6);
    }
    return digits(pick([1, 2, 3, 5, 7, 8, 10]));
  }

  function two(lo, hi, odd) {
    if (chance(0.08)) return pick(odd);
    const n = int(lo, hi);
    return chance(0.06) ? String(n) : pad(n, 2);
  }

  function fraction() {
    const n = pick([1, 2, 3, 3, 3, 4, 5, 6, 7, 9, 10, 12, 20]);
    if (chance(0.3)) return "0".repeat(int(1, n)) + digits(int(0, 4));
    return digits(n);
  }

  function isoZone() {
    const k = r();
    if (k < 0.3) return "";
    if (k < 0.55) return pick(["Z", "Z", "z"]);
    if (k < 0.85) {
      const sign = pick(["+", "-"]);
      const h = two(0, 23, ["24", "25", "99", "0"]);
      const m = two(0, 59, ["60", "99", "5"]);
      return sign + h + pick([":", ":", "", "", "."]) + m;
    }
    return pick([" Z", " UTC", "UTC", "GMT", "+01", "+1:00", "-0", "Zz", "Z ", "+", "-:", "+01:00:00",
      " (UTC)", "Z(x)", "Z)", "+0100 (CET)", "ZT", "+01:00Z"]);
  }

  function iso() {
    let s = isoYear();
    const parts = r();
    if (parts > 0.12) {
      s += pick(["-", "-", "-", "-", "/", ".", "", " "]);
      s += two(1, 12, ["00", "13", "99", "1", "001", "2"]);
      if (parts > 0.25) {
        s += pick(["-", "-", "-", "-", "/", ""]);
        s += chance(0.05) ? pick(["29", "30", "31"]) : two(1, 31, ["00", "32", "99", "1", "010"]);
      }
    }
    if (chance(0.78)) {
      s += pick(["T", "T", "T", "T", "t", " ", " ", "  ", "", "TT", "T ", "_", "\t"]);
      const h = chance(0.05) ? "24" : two(0, 23, ["24", "25", "99", "1", "001"]);
      s += h;
      const shape = r();
      if (shape < 0.05) {
        // hour only, or hhmm
        if (chance(0.5)) s += two(0, 59, ["60"]);
      } else {
        s += ":" + (h === "24" && chance(0.6) ? "00" : two(0, 59, ["60", "99", "7", "007"]));
        if (shape > 0.15) {
          s += pick([":", ":", ":", ":", "", "."]) + (h === "24" && chance(0.6) ? "00" : two(0, 59, ["60", "61", "5"]));
          if (shape > 0.35) s += pick([".", ".", ".", ".", ",", ""]) + (h === "24" && chance(0.5) ? "000" : fraction());
        }
      }
      s += isoZone();
    } else if (chance(0.1)) {
      s += isoZone();
    }
    return s;
  }

  function edgeIso() {
    const ms = pick([MAX, -MAX, 0]) + (chance(0.5) ? 0 : int(-3, 3) * pick([1, 1000, 3600000, 86400000]));
    const d = new Date(Math.max(-MAX, Math.min(MAX, ms)));
    let s = d.toISOString();
    if (chance(0.4)) s = s.replace(".000Z", chance(0.5) ? "Z" : "");
    if (chance(0.4)) {
      const off = pick(["+01:00", "-01:00", "+23:59", "-23:59", "+00:01", "-00:01"]);
      s = s.replace(/(\.\d+)?Z$/, (m) => (m.startsWith(".") ? m.slice(0, -1) : "") + off);
    }
    if (chance(0.3)) s = s.replace(/^(\+275760|-271821)/, (y) => y.slice(0, 4) + String(Number(y.slice(4)) + pick([-1, 1])));
    return s;
  }

  function jsFormat() {
    const d = new Date(Math.max(-MAX, Math.min(MAX, randomMs())));
    const f = pick([
      () => d.toString(),
      () => d.toString(),
      () => d.toUTCString(),
      () => d.toISOString(),
      () => d.toDateString(),
      () => d.toTimeString(),
      () => d.toLocaleString("en-US"),
      () => d.toLocaleString("en-US"),
      () => d.toLocaleDateString("en-US"),
      () => d.toLocaleTimeString("en-US"),
      () => d.toLocaleString("en-GB"),
      () => d.toLocaleString("de-DE"),
      () => d.toLocaleString("en-US", { timeZone: "America/New_York", timeZoneName: "short" }),
      () => d.toLocaleString("en-US", { timeZone: "America/Denver", timeZoneName: "short" }),
      () => d.toLocaleString("en-US", { dateStyle: "medium", timeStyle: "medium" }),
      () => d.toLocaleString("en-US", { dateStyle: "long" }),
      () => d.toLocaleString("en-US", { month: "short", day: "numeric", year: "numeric", hour: "numeric", minute: "2-digit" }),
      () => d.toLocaleString("en-US", { hour12: false }),
      () => d.toLocaleDateString("en-US", { weekday: "long", year: "numeric", month: "long", day: "numeric" }),
    ]);
    return f();
  }

  function monthWord() {
    const m = pick(MONTHS);
    const k = r();
    if (k < 0.45) return m.slice(0, 3);
    if (k < 0.7) return m;
    if (k < 0.8) return caseMix(m.slice(0, int(3, m.length)));
    if (k < 0.9) return m.slice(0, 3).toUpperCase() + (chance(0.5) ? "." : "");
    return m.slice(0, int(1, 2)) + pick(["", "x"]);
  }

  function legacyYear() {
    const k = r();
    if (k < 0.5) return String(int(1900, 2100));
    if (k < 0.75) return pad(int(0, 99), chance(0.5) ? 2 : 1);
    if (k < 0.85) return pad(int(0, 999), 3);
    if (k < 0.92) return String(int(0, 300000));
    return digits(int(4, 11));
  }

  function legacyTime() {
    const h = chance(0.1) ? pick([0, 12, 13, 24, 25, 99]) : int(0, 23);
    const hh = chance(0.5) ? pad(h, 2) : String(h);
    const k = r();
    let s;
    if (k < 0.35) s = `${hh}:${two(0, 59, ["60", "7"])}`;
    else if (k < 0.7) s = `${hh}:${two(0, 59, ["60"])}:${two(0, 59, ["60", "61"])}`;
    else if (k < 0.82) s = `${hh}:${two(0, 59, ["60"])}:${two(0, 59, ["60"])}.${fraction()}`;
    else if (k < 0.86) s = `${hh}::`;
    else if (k < 0.9) s = `${hh}:${two(0, 59, [])}.`;
    else if (k < 0.94) s = `${hh}.${two(0, 59, [])}`;
    else if (k < 0.97) s = `${hh}:${two(0, 59, [])}:${two(0, 59, [])}:${two(0, 99, [])}`;
    else s = `${hh}:`;
    if (chance(0.3)) s += pick([" ", "", "  "]) + pick(["AM", "PM", "am", "pm", "a.m.", "P", "A", "AMX", "p.m."]);
    return s;
  }

  function legacy() {
    const mon = monthWord();
    const d = chance(0.1) ? pick(["0", "00", "32", "99", "031"]) : String(int(1, 31));
    const m = chance(0.1) ? pick(["0", "13", "00", "012"]) : String(int(1, 12));
    const y = legacyYear();
    const sep = pick([" ", " ", ", ", "-", "/", ".", "  ", "\t", ","]);
    const dates = [
      `${mon} ${d}, ${y}`, `${mon} ${d} ${y}`, `${d} ${mon} ${y}`, `${y} ${mon} ${d}`,
      `${mon}-${d}-${y}`, `${d}-${mon}-${y}`, `${mon} ${y}`, `${mon} ${d}`, `${y}-${mon}-${d}`,
      `${m}/${d}/${y}`, `${y}/${m}/${d}`, `${d}.${m}.${y}`, `${m}-${d}-${y}`, `${y}-${m}-${d}`,
      `${m} ${d} ${y}`, `${m}/${d}`, `${y}`, `${m}${sep}${d}${sep}${y}`, `${mon}${sep}${d}${sep}${y}`,
      `${d}${sep}${mon}${sep}${y}`,
    ];
    const parts = [pick(dates)];
    if (chance(0.35)) {
      const w = pick(DAYS);
      parts.unshift(pick([w, w.slice(0, 3), w.toUpperCase(), pick(WORDS)]) + pick(["", ",", " ,", "."]));
    }
    if (chance(0.6)) parts.push(legacyTime());
    if (chance(0.45)) parts.push(chance(0.08) ? `GMT${pick(["+", "-"])}${int(0, 1300000)}:${two(0, 59, [])}` : pick(ZONES));
    if (chance(0.15)) parts.push(pick(["(Coordinated Universal Time)", "(PST)", "(GMT)", "(x(y)z)", "(", ")", "(unclosed", "()"]));
    if (chance(0.1)) parts.splice(int(0, parts.length), 0, pick(WORDS));
    if (chance(0.1)) {
      const i = int(0, parts.length - 1);
      const j = int(0, parts.length - 1);
      [parts[i], parts[j]] = [parts[j], parts[i]];
    }
    return parts.join(pick([" ", " ", " ", ", ", "  ", "T", "\u00a0"]));
  }

  const TOKENS = [":", ":", "::", ".", "-", "-", "+", "+", " ", " ", " ", ",", "/", "(", ")", "T",
    "Z", "z", "am", "pm", "UTC", "GMT", "EST", "PDT", "Jan", "December", "t", "x", "Mon", "\t"];
  function tokenSoup() {
    const n = int(1, 12);
    let s = "";
    for (let i = 0; i < n; i++) {
      if (chance(0.45)) {
        const len = pick([1, 1, 2, 2, 2, 3, 4, 4, 5, 6, 7, 9, 10, 12]);
        s += chance(0.2) ? "0".repeat(int(1, len)) + digits(Math.max(0, len - 1)) : digits(len);
      } else s += pick(TOKENS);
    }
    return s;
  }

  function charSoup() {
    const n = int(0, 24);
    let s = "";
    for (let i = 0; i < n; i++) {
      const k = r();
      if (k < 0.35) s += String(int(0, 9));
      else if (k < 0.6) s += pick([..."-:+.()/, TtZz"]);
      else if (k < 0.8) s += String.fromCharCode(int(0x20, 0x7e));
      else if (k < 0.87) s += pick(SPACES);
      else if (k < 0.92) s += pick(NOT_SPACES);
      else if (k < 0.97) s += pick(UNICODE);
      else s += String.fromCharCode(int(0, 0xffff));
    }
    return s;
  }

  // Years just past the ends of the time range brought back by legacy offsets of up to
  // 596523 hours (68 years; offsets past 1193046 hours wrap around in V8).
  function extreme() {
    const negative = chance(0.4);
    const year = (negative ? 271821 : 275760) + int(-75, 75);
    const offset = chance(0.9) ? int(100000, 596523) : int(596524, 1300000);
    const base = negative
      ? `-${pad(year, 6)}-${two(1, 12, [])}-${two(1, 31, [])}`
      : chance(0.5)
        ? `${pick(MONTHS).slice(0, 3)} ${int(1, 31)} ${year}`
        : `+${pad(year, 6)}-${two(1, 12, [])}-${two(1, 31, [])}`;
    const time = `${two(0, 23, [])}:${two(0, 59, [])}:${two(0, 59, [])}.${digits(3)}`;
    const sign = chance(0.85) !== negative ? "+" : "-"; // usually towards the range
    return `${base} ${time} ${pick(["GMT", "UTC", "Z"])}${sign}${offset}:${chance(0.5) ? two(0, 59, []) : ""}`;
  }

  function anyString() {
    const k = r();
    if (k < 0.35) return iso();
    if (k < 0.55) return jsFormat();
    if (k < 0.8) return legacy();
    if (k < 0.9) return edgeIso();
    return tokenSoup();
  }

  function mutate(s) {
    const chars = [...s];
    const edits = int(1, 3);
    for (let e = 0; e < edits; e++) {
      const i = int(0, chars.length);
      const k = r();
      if (k < 0.3 && chars.length) chars.splice(Math.min(i, chars.length - 1), 1);
      else if (k < 0.55) chars.splice(i, 0, pick([...SPACES, ...NOT_SPACES, "-", ":", ".", "+", "0", "9", "T", "Z", "(", ")", ",", "/"]));
      else if (k < 0.7 && chars.length) chars.splice(Math.min(i, chars.length - 1), 0, chars[Math.min(i, chars.length - 1)]);
      else if (k < 0.85 && chars.length) {
        const j = Math.min(i, chars.length - 1);
        chars[j] = /[a-z]/.test(chars[j]) ? chars[j].toUpperCase() : chars[j].toLowerCase();
      } else chars.splice(i, 0, String(int(0, 9)));
    }
    return chars.join("");
  }

  function spaced(s) {
    const sp = () => Array.from({ length: int(1, 3) }, () => pick(chance(0.85) ? SPACES : NOT_SPACES)).join("");
    const k = r();
    if (k < 0.35) return sp() + s;
    if (k < 0.7) return s + sp();
    if (k < 0.85) return sp() + s + sp();
    const chars = [...s];
    chars.splice(int(0, chars.length), 0, sp());
    return chars.join("");
  }

  // Raw JSON texts of non-string values (written as a session file could hold them).
  const RAW_NUMBERS = ["0", "-0", "0.0", "-0.0", "1", "-1", "1.5", "-1.5", "0.999", "-0.999",
    "8640000000000000", "-8640000000000000", "8640000000000001", "-8640000000000001",
    "8.64e15", "8.640000000000001e15", "1e400", "-1e400", "1E3", "1e-7", "12345678901234567890",
    "1767225600000", "1767225600000.9", "-62198755200000", "9007199254740993", "1e21", "123e-2",
    "1" + "0".repeat(400), "-" + "9".repeat(30)];
  function otherValue() {
    const k = r();
    if (k < 0.2) return pick(RAW_NUMBERS);
    if (k < 0.35) {
      const n = chance(0.5) ? int(-MAX * 1.01, MAX * 1.01) : (r() - 0.5) * 10 ** int(0, 22);
      return JSON.stringify(n);
    }
    if (k < 0.42) return pick(["true", "false", "null", "{}", '{"a":1}', '{"toString":1}', '{"valueOf":1}',
      '{"toString":"2026-01-01"}', '{"valueOf":"2026-01-01"}', '{"toString":1,"valueOf":2}',
      '{"__proto__":null}', '{"timestamp":"2026-01-01T00:00:00Z"}']);
    // arrays: ToPrimitive joins them with "," (null -> "")
    const elem = () => {
      const e = r();
      if (e < 0.45) return JSON.stringify(anyString());
      if (e < 0.65) return JSON.stringify(chance(0.5) ? int(0, 3000) : int(-MAX, MAX));
      if (e < 0.72) return pick(["null", "true", "false", "{}", "[]", '{"toString":0}', '{"valueOf":0}', "-0", "1e400", "[null]"]);
      return JSON.stringify(pick(["Jan", "1", "2026", "12:00", "GMT", "", " ", "2026-01-01", "PM"]));
    };
    const n = pick([0, 1, 1, 1, 2, 2, 3, 4]);
    let text = `[${Array.from({ length: n }, elem).join(",")}]`;
    if (chance(0.15)) for (let depth = int(1, 40); depth > 0; depth--) text = `[${text}]`;
    return text;
  }

  const FIXED = [
    "2026-01-15T14:05:30.123Z", "2026-01-15T14:05:30Z", "2026-01-15T14:05:30.123", "2026-01-15",
    "Thu Jan 15 2026 14:05:30 GMT+0000 (Coordinated Universal Time)", "1/15/2026, 2:05:30 PM",
    "1/15/2026, 2:05:30\u202fPM", "2026-1-1", "Dec 25, 2025 5:00 PM", " 2026-01-15T14:05:30.123Z",
    "2026-01-15T14:05:30.123Z ", " 2026-01-15", "2026-01-15 ", "0030-01-01 00:00:00",
    "0030-01-01T00:00:00", "0030-01-01", "-000001-01-01T00:00:00Z", "-000000-01-01T00:00:00Z",
    "+000000-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "-001000-02-29", "-000004-02-29T00:00:00Z",
    "+275760-09-13T00:00:00.000Z", "+275760-09-13T00:00:00.001Z", "-271821-04-20T00:00:00.000Z",
    "-271821-04-19T23:59:59.999Z", "2024-02-29", "2023-02-29", "2100-02-29", "2000-02-29",
    "2026-02-31T00:00:00Z", "2026-01-01T24:00", "2026-01-01T24:00:00.000Z", "2026-01-01T24:00:00.001Z",
    "2026-01-01T23:60", "2026-01-01t00:00:00z", "2026-01-01T00:00:00.0001234567891Z",
    "2026-01-01\u0000garbage", "\u00002026", "", " ", "Z", "T", "12", "1/15", "Jan 1", "0", "99", "100",
    "-1", "+1", "2026-01-01 00:00 GMT+400000:", "2026-01-01 00:00 GMT+1193047:",
    "2026-01-01 00:00 GMT+1193046:", "2026-01-01 00:00 GMT+596523:", "Jan\u20281 2026",
    "Jan 1 2026 10:00 \u180e", "Jan\ufeff1 2026", "[object Object]", "Invalid Date", "NaN",
  ];
  const FIXED_RAW = [...FIXED.map((s) => JSON.stringify(s)), ...RAW_NUMBERS, "true", "false", "null",
    "{}", '{"toString":1}', '{"valueOf":1}', "[]", "[[]]", "[null]", "[true]", "[1,2]",
    '["2026-01-01T00:00:00Z"]', '[["2026-01-01T00:00:00Z"]]', "[12345678901234567890]", "[-0]",
    '[{"toString":1}]', '[{"valueOf":1}]', '["Jan",1,2026]', "[2026,1,15]", '[1,"Jan",null,2026]'];

  function value() {
    const k = r();
    if (k < 0.22) return JSON.stringify(iso());
    if (k < 0.27) return JSON.stringify(edgeIso());
    if (k < 0.36) return JSON.stringify(jsFormat());
    if (k < 0.37) return JSON.stringify(extreme());
    if (k < 0.57) return JSON.stringify(legacy());
    if (k < 0.64) return otherValue();
    if (k < 0.71) return JSON.stringify(spaced(anyString()));
    if (k < 0.84) return JSON.stringify(tokenSoup());
    if (k < 0.9) return JSON.stringify(charSoup());
    return JSON.stringify(mutate(anyString()));
  }

  return function generate(count, withFixed = true) {
    const seen = new Set();
    const out = [];
    const add = (raw) => {
      if (!seen.has(raw)) {
        seen.add(raw);
        out.push(raw);
      }
    };
    if (withFixed) FIXED_RAW.forEach(add);
    for (let guard = 0; out.length < count && guard < count * 20; guard++) add(value());
    return out;
  };
}

// ---------------------------------------------------------------------------
// Command line

function option(args, name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}

function readLines(text) {
  return text.split("\n").filter((line) => line.length > 0);
}

function main(argv) {
  const [command, ...args] = argv;
  const seed = option(args, "--seed", GOLDEN_SEED);
  const count = option(args, "--count", GOLDEN_COUNT);
  if (command === "generate" || command === "sample") {
    const values = makeGenerator(seed)(count, command === "generate" || seed === GOLDEN_SEED);
    const lines = command === "generate" ? values : recordLines(values);
    process.stdout.write(lines.join("\n") + "\n");
  } else if (command === "record") {
    const file = args.find((a) => !a.startsWith("--"));
    const text = readFileSync(file && file !== "-" ? file : 0, "utf8");
    process.stdout.write(recordLines(readLines(text)).join("\n") + "\n");
  } else if (command === "check") {
    // Re-computes every [value,result] line of FILE; prints the lines that differ.
    const file = args.find((a) => !a.startsWith("--")) ?? GOLDEN;
    const lines = readLines(readFileSync(file, "utf8"));
    const bad = lines.filter((line) => {
      const [value, result] = JSON.parse(line);
      return JSON.stringify(timeOf(value)) !== JSON.stringify(result);
    });
    for (const line of bad.slice(0, 20)) process.stdout.write(`differs: ${line}\n`);
    process.stdout.write(`${file}: ${lines.length} cases, ${bad.length} differ (node ${process.version})\n`);
    process.exit(bad.length ? 1 : 0);
  } else if (command === "zones") {
    const text = JSON.stringify(recordZones()) + "\n";
    if (args.includes("--stdout")) process.stdout.write(text);
    else {
      writeFileSync(ZONES_GOLDEN, text);
      process.stderr.write(`${ZONES_GOLDEN}: ${TZ_VALUES.length} zones (node ${process.version})\n`);
    }
  } else if (command === "golden") {
    const lines = recordLines(makeGenerator(GOLDEN_SEED)(GOLDEN_COUNT));
    writeFileSync(GOLDEN, lines.join("\n") + "\n");
    process.stderr.write(`${GOLDEN}: ${lines.length} cases (node ${process.version})\n`);
  } else {
    process.stderr.write("usage: node conformance/jsdate.mjs generate|record|sample|golden|check|zones [--seed S] [--count N] [FILE]\n");
    process.exit(2);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
