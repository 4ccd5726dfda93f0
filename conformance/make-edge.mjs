#!/usr/bin/env node
// Writes the hand-written edge-case corpus data/conformance/edge/*.jsonl and its README.md.
// Each case is spelled out line by line below (raw strings where bytes matter), so this
// script is the readable source of the committed files. It does not need Pi.
//
//   node conformance/make-edge.mjs [--out DIR]
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
let OUT = join(dirname(HERE), "data", "conformance", "edge");
if (process.argv[2] === "--out") OUT = resolve(process.argv[3]);

// ------------------------------------------------------------------ helpers
const J = (o) => JSON.stringify(o);
let clock = 0;
/** ISO timestamp with explicit Z, advancing one minute per call within a case. */
const T = () => {
  const d = new Date(Date.UTC(2026, 0, 15, 9, 0, 0) + clock++ * 60_000);
  return d.toISOString();
};
const MS = (iso) => new Date(iso).getTime();
const header = (extra = {}) => J({ type: "session", version: 3, id: "0199edge-0000-7000-8000-000000000001", timestamp: "2026-01-15T08:59:00.000Z", cwd: "/home/dev/edge", ...extra });
const entry = (type, id, parentId, fields = {}) => J({ type, id, parentId, timestamp: T(), ...fields });
const msg = (id, parentId, message) => {
  const ts = T();
  return J({ type: "message", id, parentId, timestamp: ts, message: { ...message, timestamp: message.timestamp ?? MS(ts) } });
};
const user = (id, parentId, text) => msg(id, parentId, { role: "user", content: [{ type: "text", text }] });
const asst = (id, parentId, text, extra = {}) =>
  msg(id, parentId, {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, cost: { total: 0.001 } },
    stopReason: "stop",
    ...extra,
  });
const sys = (id, parentId, fields) => msg(id, parentId, { role: "system", content: "", ...fields });
const tool = (name) => ({ name, description: `${name} tool`, parameters: { type: "object" } });
const compaction = (id, parentId, firstKeptEntryId, extra = {}) =>
  entry("compaction", id, parentId, { summary: `summary by ${id}`, firstKeptEntryId, tokensBefore: 1234, ...extra });

const cases = [];
/** name, spec section, what Pi 0.87.1 does, lines (array of strings) or raw Buffer/string. */
function add(name, rule, pi, content, { eol = "\n", trailing = true } = {}) {
  clock = 0;
  const body = typeof content === "function" ? content() : content;
  cases.push({ name, rule, pi, body, eol, trailing });
}

// ------------------------------------------------------------------ §1 lines
add("malformed-and-blank-lines", "§1 lines", "Blank, whitespace-only and unparsable lines are skipped silently; the rest load.", () => [
  header(),
  "",
  "   ",
  user("u1", null, "hello"),
  "{not json",
  '{"type":"message","id":"x"',
  "\t",
  asst("a1", "u1", "hi"),
]);
add("falsy-lines-skipped", "§1 lines", "Lines parsing to null, 0, false or \"\" are skipped (not entries).", () => [
  header(),
  "null",
  user("u1", null, "hello"),
  "0",
  "false",
  '""',
  asst("a1", "u1", "hi"),
  "null",
]);
add("non-object-line-becomes-entry", "§1 lines", "Truthy non-object values (42, \"text\", [1,2], true) are kept as id-less entries; the last one is the default leaf, so the default context is empty. entryCount counts them.", () => [
  header(),
  user("u1", null, "hello"),
  "42",
  '"text"',
  asst("a1", "u1", "hi"),
  "[1,2]",
  "true",
]);
add("non-object-line-mid-file", "§1 lines", "A non-object value in the middle is an entry but not a tree node on any path; the last object entry stays the default leaf.", () => [
  header(),
  user("u1", null, "hello"),
  '"stray string"',
  asst("a1", "u1", "hi"),
]);
add("crlf-line-endings", "§1 lines", "Every line ends in \\r\\n: the \\r is JSON whitespace, all lines load.", () => [header(), user("u1", null, "hello"), asst("a1", "u1", "hi"), user("u2", "a1", "bye")], { eol: "\r\n" });
add("no-trailing-newline", "§1 lines", "Last line without \\n is accepted (Pi then appends a newline to the file; record.mjs works on a temp copy).", () => [header(), user("u1", null, "hello"), asst("a1", "u1", "hi")], { trailing: false });
add("u2028-inside-string", "§1 lines", "Raw U+2028/U+2029 inside strings are not line breaks: the record survives intact.", () => [
  header(),
  user("u1", null, "before\u2028after\u2029end"),
  asst("a1", "u1", "ok\u2028"),
]);
add("lone-surrogate-escape", "§1 lines", "\\ud83d-style lone surrogate escapes parse (JS strings may hold them); JSON.stringify writes them back escaped.", () => [
  header(),
  '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-15T09:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"lone \\ud83d high and \\udc00 low"}],"timestamp":1768467600000}}',
  asst("a1", "u1", "pair \ud83d\ude00 ok"),
]);
add("invalid-utf8-bytes", "§1 lines", "Invalid UTF-8 bytes decode to U+FFFD (Node StringDecoder); the line still parses.", () =>
  Buffer.concat([
    Buffer.from(header() + "\n" + '{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-15T09:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"bad '),
    Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82]),
    Buffer.from(' bytes"}],"timestamp":1768467600000}}\n'),
    Buffer.from(asst("a1", "u1", "hi") + "\n"),
  ]),
);
add("nan-literal-rejected", "§1 lines", "Lines containing NaN / Infinity / -Infinity literals fail JSON.parse and are skipped (Python json would accept them).", () => [
  header(),
  user("u1", null, "hello"),
  '{"type":"usage","id":"n1","parentId":"u1","timestamp":"2026-01-15T09:05:00.000Z","kind":"x","usage":{"input":NaN}}',
  '{"type":"usage","id":"n2","parentId":"u1","timestamp":"2026-01-15T09:05:00.000Z","kind":"x","usage":{"input":Infinity}}',
  '{"type":"usage","id":"n3","parentId":"u1","timestamp":"2026-01-15T09:05:00.000Z","kind":"x","usage":{"input":-Infinity}}',
  asst("a1", "u1", "hi"),
]);
add("json-edge-syntax", "§1 lines", "JSON.parse rules: trailing commas and single quotes reject the line; duplicate keys keep the last value; big numbers become doubles; leading BOM on a line rejects it.", () => [
  header(),
  user("u1", null, "hello"),
  '{"type":"message","id":"bad1","parentId":"u1","timestamp":"2026-01-15T09:05:00.000Z","message":{"role":"user","content":[]},}',
  "{'type':'message'}",
  '\ufeff{"type":"message","id":"bom","parentId":"u1","timestamp":"2026-01-15T09:05:00.000Z","message":{"role":"user","content":"bom"}}',
  '{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-15T09:06:00.000Z","message":{"role":"user","content":"first","content":"second wins","timestamp":12345678901234567890}}',
]);
add("empty-file", "§1 lines", "No parsed values at all: loadEntriesFromFile returns [] (golden error no-valid-header).", () => []);
add("only-blank-lines", "§1 lines", "Only blank lines: no entries, no header.", () => ["", "  ", ""]);

// ------------------------------------------------------------------ §2 header
add("header-not-first", "§2 header", "First parsed value is not a session header: Pi treats the file as holding no entries (no-valid-header).", () => [
  user("u1", null, "hello"),
  header(),
  asst("a1", "u1", "hi"),
]);
add("header-id-not-string", "§2 header", "Header id is a number: not a valid header (no-valid-header).", () => [header({ id: 123 }), user("u1", null, "hello")]);
add("header-id-missing", "§2 header", "Header without id: not a valid header.", () => [J({ type: "session", version: 3, timestamp: "2026-01-15T08:59:00.000Z", cwd: "/x" }), user("u1", null, "hello")]);
add("header-after-blank-and-malformed", "§2 header", "Blank and malformed lines before the header do not count: the header is the first *parsed* value.", () => ["", "{oops", header(), user("u1", null, "hello")]);
add("header-falsy-line-before", "§2 header", "A `null` line before the header is skipped, so the header is still first.", () => ["null", header(), user("u1", null, "hello")]);
add("header-non-object-before", "§2 header", "A truthy non-object (42) before the header is the first parsed value: no-valid-header.", () => ["42", header(), user("u1", null, "hello")]);
add("only-header", "§2 header", "Header only: zero entries, empty context.", () => [header()]);
add("second-session-line-filtered", "§2 header / §3", "A later line with type session is dropped by getEntries() (filter type !== session) and never becomes a tree node.", () => [
  header(),
  user("u1", null, "hello"),
  J({ type: "session", version: 1, id: "other", timestamp: "2026-01-15T09:01:00.000Z", cwd: "/y" }),
  asst("a1", "u1", "hi"),
]);
add("header-parent-session", "§2 header", "parentSession (a path) and extra header fields are carried but do not affect the context.", () => [
  header({ parentSession: "/home/dev/.pi/agent/sessions/--home-dev-edge--/2026-01-14T10-00-00-000Z_0199.jsonl", extra: { a: 1 } }),
  user("u1", null, "hello"),
]);

// ------------------------------------------------------------------ §3 entries
add("unknown-entry-type-and-fields", "§3 entries", "Unknown entry types stay as tree nodes (paths pass through them) and contribute no messages; unknown fields are kept and ignored.", () => [
  header(),
  user("u1", null, "hello"),
  entry("future_thing", "f1", "u1", { payload: { x: 1 } }),
  msg("a1", "f1", { role: "assistant", content: [{ type: "text", text: "hi" }], provider: "p", model: "m", futureField: true, usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: 0 } } }),
  entry("model_change", "mc", "a1", { provider: "x", modelId: "y", extraField: [1, 2] }),
]);
add("full-uuid-ids", "§3 entries", "Ids of any length (full UUIDs) work like 8-hex ids.", () => [
  header(),
  user("7f3c2a10-1b2c-4d5e-8f90-0123456789ab", null, "hello"),
  asst("9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d", "7f3c2a10-1b2c-4d5e-8f90-0123456789ab", "hi"),
  user("x", "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d", "short id after long"),
]);
add("numeric-ids", "§3 / §5", "Non-string ids and parentIds still work as Map keys: parentId 2 finds the entry with id 2 (a number), not \"2\".", () => [
  header(),
  J({ type: "message", id: 1, parentId: null, timestamp: "2026-01-15T09:00:00.000Z", message: { role: "user", content: "one", timestamp: 1 } }),
  J({ type: "message", id: "1", parentId: null, timestamp: "2026-01-15T09:00:00.000Z", message: { role: "user", content: "string one", timestamp: 2 } }),
  J({ type: "message", id: 2, parentId: 1, timestamp: "2026-01-15T09:01:00.000Z", message: { role: "user", content: "two", timestamp: 3 } }),
]);
add("parent-id-missing-field", "§3 / §5", "An entry without a parentId key is a root (undefined is falsy), same as null.", () => [
  header(),
  user("u1", null, "first root"),
  J({ type: "message", id: "u2", timestamp: "2026-01-15T09:01:00.000Z", message: { role: "user", content: [{ type: "text", text: "no parentId key" }], timestamp: 2 } }),
  asst("a2", "u2", "hi"),
]);
add("message-without-message-field", "§3 entries", "A message entry with no `message` object makes Pi throw (TypeError reading role) when the settings scan reaches it: golden records error exception.", () => [
  header(),
  user("u1", null, "hello"),
  J({ type: "message", id: "m1", parentId: "u1", timestamp: "2026-01-15T09:01:00.000Z" }),
]);

// ------------------------------------------------------------------ §4 migration
add("v1-first-kept-entry-index-counts-header", "§4 migration", "v1: firstKeptEntryIndex indexes parsed values with the header at 0; index 3 = third entry. Ids are fresh random, parentIds chain in file order.", () => [
  header({ version: 1 }),
  J({ type: "message", timestamp: "2026-01-15T09:00:00.000Z", message: { role: "user", content: "u1 (index 1)", timestamp: 1 } }),
  J({ type: "message", timestamp: "2026-01-15T09:01:00.000Z", message: { role: "assistant", content: [{ type: "text", text: "a1 (index 2)" }], provider: "p", model: "m", timestamp: 2 } }),
  J({ type: "message", timestamp: "2026-01-15T09:02:00.000Z", message: { role: "user", content: "u2 (index 3)", timestamp: 3 } }),
  J({ type: "message", timestamp: "2026-01-15T09:03:00.000Z", message: { role: "assistant", content: [{ type: "text", text: "a2 (index 4)" }], provider: "p", model: "m", timestamp: 4 } }),
  J({ type: "compaction", timestamp: "2026-01-15T09:04:00.000Z", summary: "sum", firstKeptEntryIndex: 3, tokensBefore: 100 }),
  J({ type: "message", timestamp: "2026-01-15T09:05:00.000Z", message: { role: "user", content: "after", timestamp: 6 } }),
]);
add("v1-first-kept-index-points-at-header", "§4 migration", "firstKeptEntryIndex 0 = the header: no firstKeptEntryId is set (index deleted), so nothing before the compaction is kept.", () => [
  header({ version: 1 }),
  J({ type: "message", timestamp: "2026-01-15T09:00:00.000Z", message: { role: "user", content: "u1", timestamp: 1 } }),
  J({ type: "compaction", timestamp: "2026-01-15T09:04:00.000Z", summary: "sum", firstKeptEntryIndex: 0, tokensBefore: 100 }),
  J({ type: "message", timestamp: "2026-01-15T09:05:00.000Z", message: { role: "user", content: "after", timestamp: 6 } }),
]);
add("v1-index-past-end", "§4 migration", "Index past the end: no firstKeptEntryId, nothing before the compaction kept.", () => [
  header({ version: 1 }),
  J({ type: "message", timestamp: "2026-01-15T09:00:00.000Z", message: { role: "user", content: "u1", timestamp: 1 } }),
  J({ type: "compaction", timestamp: "2026-01-15T09:04:00.000Z", summary: "sum", firstKeptEntryIndex: 99, tokensBefore: 100 }),
  J({ type: "message", timestamp: "2026-01-15T09:05:00.000Z", message: { role: "user", content: "after", timestamp: 6 } }),
]);
add("v1-index-later-entry-no-id-yet", "§4 migration", "Index pointing at a later entry: that entry has no id yet when the compaction is migrated, so firstKeptEntryId = undefined; nothing before the compaction kept.", () => [
  header({ version: 1 }),
  J({ type: "message", timestamp: "2026-01-15T09:00:00.000Z", message: { role: "user", content: "u1", timestamp: 1 } }),
  J({ type: "compaction", timestamp: "2026-01-15T09:04:00.000Z", summary: "sum", firstKeptEntryIndex: 3, tokensBefore: 100 }),
  J({ type: "message", timestamp: "2026-01-15T09:05:00.000Z", message: { role: "user", content: "after (index 3)", timestamp: 6 } }),
]);
add("v1-skipped-lines-not-counted", "§4 migration", "Blank, malformed and falsy lines are not parsed values, so they do not shift firstKeptEntryIndex (index 2 = second parsed entry).", () => [
  header({ version: 1 }),
  "",
  J({ type: "message", timestamp: "2026-01-15T09:00:00.000Z", message: { role: "user", content: "u1 (index 1)", timestamp: 1 } }),
  "{broken",
  "null",
  J({ type: "message", timestamp: "2026-01-15T09:01:00.000Z", message: { role: "user", content: "u2 (index 2)", timestamp: 2 } }),
  J({ type: "message", timestamp: "2026-01-15T09:02:00.000Z", message: { role: "user", content: "u3 (index 3)", timestamp: 3 } }),
  J({ type: "compaction", timestamp: "2026-01-15T09:04:00.000Z", summary: "sum", firstKeptEntryIndex: 2, tokensBefore: 100 }),
]);
add("v1-existing-ids-overwritten", "§4 migration", "A v1 file whose lines already carry id/parentId: migration overwrites them with fresh ids and a file-order chain (the old branch structure is lost; the default leaf path is every entry).", () => [
  header({ version: 1 }),
  user("u1", null, "root"),
  asst("a1", "u1", "answer A"),
  asst("b1", "u1", "answer B on another branch"),
]);
add("v1-non-object-entry-gets-no-id", "§4 migration", "v1 migration assigns entry.id on every non-header value; Pi's modules are strict mode, so doing that on the number 42 throws a TypeError and Pi cannot open the file (golden: top-level error exception, stage migration, no cases).", () => [
  header({ version: 1 }),
  J({ type: "message", timestamp: "2026-01-15T09:00:00.000Z", message: { role: "user", content: "u1", timestamp: 1 } }),
  "42",
  J({ type: "message", timestamp: "2026-01-15T09:01:00.000Z", message: { role: "user", content: "u2", timestamp: 2 } }),
]);
add("version-missing-means-1", "§2 / §4", "No version field: treated as 1 and migrated (fresh ids, hookMessage renamed).", () => [
  J({ type: "session", id: "0199edge-0000-7000-8000-00000000000a", timestamp: "2026-01-15T08:59:00.000Z", cwd: "/x" }),
  J({ type: "message", timestamp: "2026-01-15T09:00:00.000Z", message: { role: "user", content: "u1", timestamp: 1 } }),
  J({ type: "message", timestamp: "2026-01-15T09:01:00.000Z", message: { role: "hookMessage", customType: "h", content: "hook text", display: true, timestamp: 2 } }),
]);
add("version-null-means-1", "§2 / §4", "version: null is nullish, so `?? 1` gives 1 and the file is migrated from v1.", () => [
  header({ version: null }),
  J({ type: "message", timestamp: "2026-01-15T09:00:00.000Z", message: { role: "user", content: "u1", timestamp: 1 } }),
]);
add("version-string-3", "§4 migration", "version \"3\" (a string): JS compares \"3\" >= 3 as true, so no migration runs; ids are kept.", () => [
  header({ version: "3" }),
  user("u1", null, "hello"),
  msg("h1", "u1", { role: "hookMessage", customType: "h", content: "stays hookMessage", display: true }),
]);
add("version-non-numeric-string", "§4 migration", "version \"abc\": neither < 2 nor < 3 is true (NaN comparisons), so no step runs, ids are kept and hookMessage is not renamed (dropped by convertToLlm).", () => [
  header({ version: "abc" }),
  user("u1", null, "hello"),
  msg("h1", "u1", { role: "hookMessage", customType: "h", content: "not renamed", display: true }),
]);
add("v2-hookmessage-renamed", "§4 migration", "v2: message.role hookMessage becomes custom (so convertToLlm turns it into a user message); ids kept; entry type untouched.", () => [
  header({ version: 2 }),
  user("u1", null, "hello"),
  msg("h1", "u1", { role: "hookMessage", customType: "reminder", content: "string hook", display: true, details: { a: 1 } }),
  msg("h2", "h1", { role: "hookMessage", customType: "reminder", content: [{ type: "text", text: "array hook" }], display: false }),
  entry("custom", "c1", "h2", { customType: "hookMessage", data: { role: "hookMessage" } }),
]);
add("v3-stray-hookmessage-dropped-by-llm", "§4 / §10", "A v3 file is not migrated: a stray hookMessage role stays in the context and convertToLlm drops it (unknown role).", () => [
  header(),
  user("u1", null, "hello"),
  msg("h1", "u1", { role: "hookMessage", customType: "reminder", content: "stray", display: true }),
  asst("a1", "h1", "hi"),
]);
add("version-4-future", "§4 migration", "A header version above 3 is not migrated; entries are read as is.", () => [header({ version: 4 }), user("u1", null, "hello"), msg("h1", "u1", { role: "hookMessage", customType: "h", content: "x", display: true })]);
add("version-3.5-above-3", "§4 migration", "version 3.5: not below 3, so no step runs (ids kept); newer than the version 3 rules (pisession adds a newer-version diagnostic).", () => [header({ version: 3.5 }), user("u1", null, "hello"), asst("a1", "u1", "hi")]);
add("version-string-10", "§4 migration", "version \"10\" (a string): JS compares \"10\" >= 3 as true, so no migration runs; newer than version 3 (pisession adds a newer-version diagnostic).", () => [header({ version: "10" }), user("u1", null, "hello"), asst("a1", "u1", "hi")]);
// Written by pi-agent-core 0.87.1's own JsonlSessionRepo (harness/session/jsonl: create,
// createBranch, appendToBranch, a compaction commit, setName), ids and times as it wrote them.
add("agent-core-v4-storage", "§2 header", "pi-agent-core's experimental format 4 ({\"v\":4,\"kind\":\"header\"}, transactions, compactions with retainedTail) is not a Pi session: no valid header, Pi finds no session (pisession names the format in its error).", () => [
  '{"v":4,"kind":"header","id":"01a0c857-ee68-7110-9c09-905b19573562","storageVersion":1,"createdAt":1790067601000,"cwd":"/home/dev/v4"}',
  '{"kind":"value","op":"set","seq":1,"namespace":"pi.branch.tip","key":"main","value":null}',
  '[{"kind":"entry","id":"01a22fd4-d0ba-7110-9c09-905c81f919b8","parentId":null,"type":"message","message":{"role":"user","content":"hello","timestamp":1790067603000},"seq":2,"timestamp":1790067604000},{"kind":"value","op":"set","seq":3,"namespace":"pi.branch.tip","key":"main","value":"01a22fd4-d0ba-7110-9c09-905c81f919b8"}]',
  '[{"kind":"entry","id":"01a22fd4-d0ba-7110-9c09-905f3da1e77c","parentId":"01a22fd4-d0ba-7110-9c09-905c81f919b8","type":"message","message":{"role":"assistant","content":[{"type":"text","text":"hi"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.001}},"stopReason":"stop","timestamp":1790067604000},"seq":4,"timestamp":1790067605000},{"kind":"value","op":"set","seq":5,"namespace":"pi.branch.tip","key":"main","value":"01a22fd4-d0ba-7110-9c09-905f3da1e77c"}]',
  '[{"kind":"entry","id":"01a22fd4-d0bb-7110-9c09-90606a1e8e96","parentId":"01a22fd4-d0ba-7110-9c09-905f3da1e77c","type":"message","message":{"role":"user","content":"and now?","timestamp":1790067605000},"seq":6,"timestamp":1790067606000},{"kind":"value","op":"set","seq":7,"namespace":"pi.branch.tip","key":"main","value":"01a22fd4-d0bb-7110-9c09-90606a1e8e96"}]',
  '{"kind":"entry","type":"compaction","id":"c0mp4ct1","parentId":"01a22fd4-d0bb-7110-9c09-90606a1e8e96","summary":"User said hello.","retainedTail":[{"role":"user","content":"and now?","timestamp":1790067606000}],"tokensBefore":1234,"fromHook":false,"seq":8,"timestamp":1790067607000}',
  '{"kind":"value","op":"set","seq":9,"namespace":"pi.session.name","key":"","value":"v4 storage sample"}',
]);

// ------------------------------------------------------------------ §5 leaf & path
add("default-leaf-is-last-entry-any-type", "§5 leaf and path", "The default leaf is the last entry in file order whatever its type: here a label on another branch, so the default context follows that branch.", () => [
  header(),
  user("u1", null, "root"),
  asst("a1", "u1", "branch one answer"),
  user("u2", "a1", "branch one follow-up"),
  asst("b1", "u1", "branch two answer"),
  entry("label", "l1", "b1", { targetId: "u2", label: "look here" }),
]);
add("duplicate-ids-later-wins", "§5 leaf and path", "Two entries share id d1: the later one wins in the index, so children of d1 and the leaf id d1 resolve to the later entry.", () => [
  header(),
  user("u1", null, "root"),
  asst("d1", "u1", "first d1"),
  user("u2", "d1", "child of d1"),
  msg("d1", null, { role: "user", content: [{ type: "text", text: "second d1 (root)" }] }),
]);
add("empty-parent-id-is-root", "§5 leaf and path", "parentId \"\" is falsy: the entry is a root.", () => [
  header(),
  user("u1", null, "other root"),
  user("u2", "", "empty parent string"),
  asst("a2", "u2", "hi"),
]);
add("dangling-parent", "§5 leaf and path", "A parentId naming no entry ends the walk: the path starts at that entry.", () => [
  header(),
  user("u1", null, "root"),
  user("u2", "missing0", "dangling"),
  asst("a2", "u2", "hi"),
]);
add("multiple-roots", "§5 leaf and path", "Several roots (resetLeaf / branchWithSummary(null)) are legal; each path starts at its own root.", () => [
  header(),
  user("r1", null, "root one"),
  asst("r1a", "r1", "answer one"),
  user("r2", null, "root two"),
  asst("r2a", "r2", "answer two"),
  entry("branch_summary", "bs", null, { fromId: "r2a", summary: "summary root" }),
  user("r3", "bs", "after summary root"),
]);
add("parent-cycle", "§5 leaf and path", "a -> b -> a: Pi 0.87.1 loops forever building the path; golden records {error: cycle} for the default leaf and other leaves reaching the cycle.", () => [
  header(),
  user("u1", null, "root"),
  msg("a", "b", { role: "user", content: [{ type: "text", text: "a" }] }),
  msg("b", "a", { role: "user", content: [{ type: "text", text: "b" }] }),
]);
add("self-parent", "§5 leaf and path", "parentId equal to its own id: infinite loop in Pi (recorded as cycle). getTree treats it as a root.", () => [
  header(),
  user("u1", null, "root"),
  msg("s", "s", { role: "user", content: [{ type: "text", text: "self" }] }),
]);
add("cycle-off-default-path", "§5 leaf and path", "A cycle elsewhere does not affect the default leaf's path; leaves inside the cycle record error cycle.", () => [
  header(),
  msg("a", "c", { role: "user", content: [{ type: "text", text: "a" }] }),
  msg("b", "a", { role: "user", content: [{ type: "text", text: "b" }] }),
  msg("c", "b", { role: "user", content: [{ type: "text", text: "c" }] }),
  user("u1", null, "root"),
  asst("a1", "u1", "fine"),
]);
add("cycle-via-duplicate-id", "§5 leaf and path", "A later duplicate id can close a loop: the walk goes x(2nd) -> y -> x(2nd)...: cycle.", () => [
  header(),
  user("x", null, "x first (root)"),
  user("y", "x", "y child of x"),
  msg("x", "y", { role: "user", content: [{ type: "text", text: "x second, parent y" }] }),
]);

// ------------------------------------------------------------------ §6 settings
add("settings-from-summarized-part", "§6 settings", "thinking_level_change and model_change before the kept range (summarized away) still set thinkingLevel/model: the settings scan covers the whole path.", () => [
  header(),
  entry("thinking_level_change", "t1", null, { thinkingLevel: "high" }),
  entry("model_change", "m1", "t1", { provider: "openai", modelId: "gpt-5.1" }),
  user("u1", "m1", "old"),
  user("u2", "u1", "kept"),
  compaction("c1", "u2", "u2"),
  user("u3", "c1", "after"),
]);
add("thinking-level-off-on-other-branch", "§6 settings", "A branch that never saw a thinking_level_change reports \"off\" even though another branch set \"high\".", () => [
  header(),
  user("u1", null, "root"),
  entry("thinking_level_change", "t1", "u1", { thinkingLevel: "high" }),
  user("u2", "t1", "high branch"),
  user("u3", "u1", "other branch"),
]);
add("model-from-assistant-message", "§6 settings", "An assistant message sets model {provider, modelId: message.model}; later wins over model_change; missing fields are omitted from the JSON ({} when both missing).", () => [
  header(),
  entry("model_change", "m1", null, { provider: "openai", modelId: "gpt-5.1" }),
  asst("a1", "m1", "from anthropic"),
  entry("model_change", "m2", "a1", { provider: "google" }),
  user("u1", "m2", "model_change without modelId"),
  msg("a2", "u1", { role: "assistant", content: [{ type: "text", text: "no provider/model" }] }),
]);
add("thinking-level-missing-field", "§6 settings", "thinking_level_change without thinkingLevel sets it to undefined, so the context JSON has no thinkingLevel key at all.", () => [
  header(),
  entry("thinking_level_change", "t1", null, { thinkingLevel: "low" }),
  entry("thinking_level_change", "t2", "t1", {}),
  user("u1", "t2", "hi"),
]);

// ------------------------------------------------------------------ §7 compaction
add("compaction-drops-system-in-kept-range", "§7 selection", "System messages inside the kept range (before the compaction) are skipped; the compaction's stored systemMessage replaces them. A system message after the compaction is kept.", () => [
  header(),
  sys("s1", null, { sections: { base: "You are Pi." }, toolsAdded: [tool("read")] }),
  user("u1", "s1", "old"),
  user("u2", "u1", "kept 1"),
  sys("s2", "u2", { sections: { date: "Today" } }),
  asst("a2", "s2", "kept 2"),
  compaction("c1", "a2", "u2", { systemMessage: { role: "system", content: "", sections: { base: "You are Pi.", date: "Today" }, toolsAdded: [tool("read")], timestamp: 1768468000000 } }),
  sys("s3", "c1", { sections: { date: "Tomorrow" } }),
  user("u3", "s3", "after"),
]);
add("compaction-retain-none", "§7 selection", "firstKeptEntryId = the compaction's own id (what appendCompaction stores when none given): not found before it, nothing before it kept.", () => [
  header(),
  user("u1", null, "old"),
  asst("a1", "u1", "old answer"),
  compaction("c1", "a1", "c1"),
  user("u2", "c1", "after"),
]);
add("compaction-first-kept-not-found", "§7 selection", "firstKeptEntryId names an id not on the path before the compaction (another branch, or nothing): nothing before it kept.", () => [
  header(),
  user("u1", null, "old"),
  asst("x1", "u1", "other branch"),
  asst("a1", "u1", "old answer"),
  compaction("c1", "a1", "x1"),
  compaction("c2", "c1", "nope0000"),
  user("u2", "c2", "after"),
]);
add("compaction-first-kept-after-compaction", "§7 selection", "firstKeptEntryId names an entry after the compaction: not found before it, so nothing before kept (entries after are kept anyway).", () => [
  header(),
  user("u1", null, "old"),
  compaction("c1", "u1", "u2"),
  user("u2", "c1", "after"),
]);
add("compaction-first-kept-missing-field", "§7 selection", "No firstKeptEntryId field: entry.id === undefined never matches, nothing before kept.", () => [
  header(),
  user("u1", null, "old"),
  entry("compaction", "c1", "u1", { summary: "s", tokensBefore: 5 }),
  user("u2", "c1", "after"),
]);
add("compaction-first-kept-is-non-message", "§7 selection", "firstKeptEntryId may name any entry type (here a model_change); selection starts there and includes non-message entries.", () => [
  header(),
  user("u1", null, "old"),
  entry("model_change", "m1", "u1", { provider: "p", modelId: "m" }),
  user("u2", "m1", "kept"),
  compaction("c1", "u2", "m1"),
  user("u3", "c1", "after"),
]);
add("compaction-first-kept-is-system", "§7 selection", "firstKeptEntryId names a system message: the range starts there but the system message itself is skipped.", () => [
  header(),
  user("u1", null, "old"),
  sys("s1", "u1", { sections: { base: "P" } }),
  user("u2", "s1", "kept"),
  compaction("c1", "u2", "s1"),
]);
add("older-compaction-in-kept-range-contributes-nothing", "§7 selection", "The newest compaction's kept range contains an older compaction: it stays selected (projection row with 0 messages) but contributes no summary.", () => [
  header(),
  user("u1", null, "very old"),
  user("u2", "u1", "old"),
  compaction("c1", "u2", "u2"),
  user("u3", "c1", "middle"),
  compaction("c2", "u3", "u1"),
  user("u4", "c2", "after"),
]);
add("compaction-on-other-branch-ignored", "§7 selection", "A compaction on a sibling branch does not affect this path.", () => [
  header(),
  user("u1", null, "root"),
  compaction("c1", "u1", "c1"),
  user("u2", "u1", "other branch, no compaction"),
]);
add("compaction-system-message-null-content", "§7 / §11", "A stored compaction systemMessage with content null is passed as is; getCurrentSystemMessage then throws (contentText(null)). Golden: exception at stage systemMessage.", () => [
  header(),
  user("u1", null, "old"),
  compaction("c1", "u1", "c1", { systemMessage: { role: "system", content: null, sections: { a: "x" }, timestamp: 1 } }),
]);
add("compaction-tokens-before-missing", "§9 contributions", "Missing tokensBefore/summary are undefined: the compactionSummary JSON lacks those keys; convertToLlm renders summary as the string \"undefined\".", () => [
  header(),
  user("u1", null, "old"),
  entry("compaction", "c1", "u1", { firstKeptEntryId: "c1" }),
]);
add("retained-tail-field-ignored", "§13 divergences", "A retainedTail field on a compaction is not part of 0.87.1: ignored.", () => [
  header(),
  user("u1", null, "old"),
  user("u2", "u1", "older tail"),
  compaction("c1", "u2", "c1", { retainedTail: ["u2"] }),
  user("u3", "c1", "after"),
]);

// ------------------------------------------------------------------ §8 context edits
add("context-edit-later-replaces-earlier", "§8 context edits", "Two edits on the same target: the later one wins (only one replacement applied).", () => [
  header(),
  user("u1", null, "original"),
  asst("a1", "u1", "answer"),
  entry("context_edit", "e1", "a1", { targetId: "u1", replacement: { content: "first edit" } }),
  entry("context_edit", "e2", "e1", { targetId: "u1", replacement: { content: [{ type: "text", text: "second edit wins" }] } }),
]);
add("context-edit-later-null-wins", "§8 context edits", "A later null edit removes a target an earlier edit had rewritten; a later non-null edit restores a removed one.", () => [
  header(),
  user("u1", null, "one"),
  user("u2", "u1", "two"),
  entry("context_edit", "e1", "u2", { targetId: "u1", replacement: { content: "rewritten" } }),
  entry("context_edit", "e2", "e1", { targetId: "u1", replacement: null }),
  entry("context_edit", "e3", "e2", { targetId: "u2", replacement: null }),
  entry("context_edit", "e4", "e3", { targetId: "u2", replacement: { content: "back" } }),
]);
add("context-edit-string-to-text-block", "§8 context edits", "A string replacement becomes [{type:text}] for assistant and toolResult targets, and stays a string for user, custom role messages and custom_message entries.", () => [
  header(),
  user("u1", null, "user original"),
  msg("a1", "u1", { role: "assistant", content: [{ type: "toolCall", id: "t1", name: "read", arguments: {} }], provider: "p", model: "m", stopReason: "toolUse" }),
  msg("r1", "a1", { role: "toolResult", toolCallId: "t1", toolName: "read", content: [{ type: "text", text: "result original" }], isError: false }),
  msg("cr", "r1", { role: "custom", customType: "ext", content: "custom role original", display: true }),
  entry("custom_message", "cm", "cr", { customType: "ext", content: "custom_message original", display: true }),
  entry("context_edit", "e1", "cm", { targetId: "u1", replacement: { content: "user edited" } }),
  entry("context_edit", "e2", "e1", { targetId: "a1", replacement: { content: "assistant edited" } }),
  entry("context_edit", "e3", "e2", { targetId: "r1", replacement: { content: "toolResult edited" } }),
  entry("context_edit", "e4", "e3", { targetId: "cr", replacement: { content: "custom role edited" } }),
  entry("context_edit", "e5", "e4", { targetId: "cm", replacement: { content: "custom_message edited" } }),
]);
add("context-edit-null-removes", "§8 context edits", "replacement null: the target contributes no messages (projection row keeps the entry with 0 messages).", () => [
  header(),
  user("u1", null, "keep"),
  msg("a1", "u1", { role: "assistant", content: [{ type: "text", text: "failed attempt" }], provider: "p", model: "m", stopReason: "error", errorMessage: "boom" }),
  entry("context_edit", "e1", "a1", { targetId: "a1", replacement: null }),
  user("u2", "e1", "retry"),
]);
add("context-edit-non-editable-roles", "§8 context edits", "A non-null edit on system / bashExecution / branch_summary / compaction leaves those messages unchanged; a null edit removes them all (compaction summary and its systemMessage included).", () => [
  header(),
  sys("s1", null, { content: "sys original" }),
  msg("b1", "s1", { role: "bashExecution", command: "ls", output: "a", exitCode: 0, cancelled: false, truncated: false }),
  entry("branch_summary", "bs", "b1", { fromId: "zz", summary: "branch sum" }),
  entry("context_edit", "e1", "bs", { targetId: "s1", replacement: { content: "nope" } }),
  entry("context_edit", "e2", "e1", { targetId: "b1", replacement: { content: "nope" } }),
  entry("context_edit", "e3", "e2", { targetId: "bs", replacement: { content: "nope" } }),
  msg("b2", "e3", { role: "bashExecution", command: "pwd", output: "/", exitCode: 0, cancelled: false, truncated: false }),
  entry("context_edit", "e4", "b2", { targetId: "b2", replacement: null }),
]);
add("context-edit-null-on-compaction", "§8 context edits", "A context_edit after a compaction targeting the compaction with null removes the summary (and systemMessage) from the context.", () => [
  header(),
  user("u1", null, "old"),
  compaction("c1", "u1", "c1", { systemMessage: { role: "system", content: "S", timestamp: 5 } }),
  user("u2", "c1", "after"),
  entry("context_edit", "e1", "u2", { targetId: "c1", replacement: null }),
]);
add("context-edit-null-on-older-compaction", "§8 context edits", "A null edit after the newest compaction targets an older compaction kept in its range: that one contributes nothing (only the first selected entry, the newest compaction, sends a summary), so the edit removes nothing.", () => [
  header(),
  user("u1", null, "very old"),
  compaction("c1", "u1", "u1"),
  user("u2", "c1", "middle"),
  compaction("c2", "u2", "c1"),
  entry("context_edit", "e1", "c2", { targetId: "c1", replacement: null }),
  user("u3", "e1", "after"),
]);
add("context-edit-null-on-label", "§8 context edits", "A null edit targeting a label removes nothing: a label contributes no message.", () => [
  header(),
  user("u1", null, "hello"),
  entry("label", "l1", "u1", { targetId: "u1", label: "start" }),
  entry("context_edit", "e1", "l1", { targetId: "l1", replacement: null }),
  user("u2", "e1", "after"),
]);
add("context-edit-summarized-away-not-applied", "§8 context edits", "The edit entry lies before the kept range (summarized away), so it is not collected even though its target is kept.", () => [
  header(),
  user("u1", null, "target, kept"),
  entry("context_edit", "e1", "u1", { targetId: "u2", replacement: null }),
  user("u2", "e1", "also kept"),
  compaction("c1", "u2", "u2"),
]);
add("context-edit-target-summarized-away", "§8 context edits", "The edit is selected but its target was summarized away: nothing to change.", () => [
  header(),
  user("u1", null, "summarized away"),
  user("u2", "u1", "kept"),
  compaction("c1", "u2", "u2"),
  entry("context_edit", "e1", "c1", { targetId: "u1", replacement: { content: "ghost" } }),
]);
add("context-edit-on-other-branch-not-applied", "§8 context edits", "Edits are branch-local: an edit on a sibling branch does not apply to this path.", () => [
  header(),
  user("u1", null, "shared"),
  entry("context_edit", "e1", "u1", { targetId: "u1", replacement: { content: "edited on branch A" } }),
  asst("a2", "u1", "branch B"),
]);
add("context-edit-array-on-custom-message", "§8 context edits", "An array replacement on a custom_message entry replaces its content; other fields (customType, display, details) stay.", () => [
  header(),
  entry("custom_message", "cm", null, { customType: "ext", content: "orig", display: true, details: { d: 1 } }),
  entry("context_edit", "e1", "cm", { targetId: "cm", replacement: { content: [{ type: "text", text: "new" }, { type: "image", data: "AA==", mimeType: "image/png" }] } }),
]);
add("context-edit-replacement-without-content", "§8 context edits", "replacement {} (no content): content becomes undefined, so the key disappears from the JSON; convertToLlm passes the message through.", () => [
  header(),
  user("u1", null, "orig"),
  entry("context_edit", "e1", "u1", { targetId: "u1", replacement: {} }),
]);
add("context-edit-replacement-missing", "§8 context edits", "No replacement field at all: edit.replacement is undefined (not null), so Pi reads undefined.content and throws a TypeError while building the context (golden: exception at stage context).", () => [
  header(),
  user("u1", null, "orig"),
  entry("context_edit", "e1", "u1", { targetId: "u1" }),
]);

// ------------------------------------------------------------------ §9 contributions
add("null-content-defaults", "§9 contributions", "system null/missing content -> \"\"; user/assistant/toolResult null/missing -> []; other roles (custom, bashExecution) untouched.", () => [
  header(),
  sys("s1", null, { content: null }),
  msg("s2", "s1", { role: "system", sections: { a: "x" } }),
  msg("u1", "s2", { role: "user", content: null }),
  msg("u2", "u1", { role: "user" }),
  msg("a1", "u2", { role: "assistant", content: null, provider: "p", model: "m" }),
  msg("r1", "a1", { role: "toolResult", toolCallId: "t", toolName: "x", isError: false }),
  msg("c1", "r1", { role: "custom", customType: "x", content: null, display: true }),
  msg("u3", "c1", { role: "user", content: "" }),
]);
add("custom-message-details-absent", "§9 contributions", "custom_message without details: details key absent in the built message; details null is kept as null.", () => [
  header(),
  entry("custom_message", "cm1", null, { customType: "ext", content: "no details", display: true }),
  entry("custom_message", "cm2", "cm1", { customType: "ext", content: "null details", display: false, details: null }),
  entry("custom_message", "cm3", "cm2", { customType: "ext", content: [{ type: "text", text: "with details" }], display: true, details: { k: [1, 2] } }),
]);
add("custom-message-null-content", "§9 contributions", "custom_message content null or missing -> [] (convertToLlm keeps the empty array as user content).", () => [
  header(),
  entry("custom_message", "cm1", null, { customType: "ext", content: null, display: true }),
  entry("custom_message", "cm2", "cm1", { customType: "ext", display: true }),
  entry("custom_message", "cm3", "cm2", { content: "no customType or display" }),
]);
add("branch-summary-empty-summary", "§9 contributions", "branch_summary with empty or missing summary contributes nothing; non-empty gives a branchSummary message (fromId as stored, missing -> absent).", () => [
  header(),
  user("u1", null, "root"),
  entry("branch_summary", "b1", "u1", { fromId: "x1", summary: "" }),
  entry("branch_summary", "b2", "b1", { fromId: "x2" }),
  entry("branch_summary", "b3", "b2", { summary: "real summary, no fromId" }),
  entry("branch_summary", "b4", "b3", { fromId: "root", summary: "from root" }),
]);
add("entries-without-context", "§9 contributions", "model_change, thinking_level_change, usage, custom, label, session_info and unknown types contribute no messages (projection rows with 0).", () => [
  header(),
  entry("session_info", "si", null, { name: "n" }),
  entry("model_change", "mc", "si", { provider: "p", modelId: "m" }),
  entry("thinking_level_change", "tl", "mc", { thinkingLevel: "low" }),
  entry("usage", "us", "tl", { kind: "title", provider: "p", model: "m", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, cost: { total: 0.1 } } }),
  entry("custom", "cu", "us", { customType: "state", data: { a: 1 } }),
  entry("label", "la", "cu", { targetId: "si", label: "L" }),
  user("u1", "la", "only message"),
]);
add("timestamps-js-date-parsing", "§9 timestamps", "Built messages take new Date(entry.timestamp).getTime(): offsets and date-only parse, >3 fraction digits truncate, empty/garbage -> NaN (JSON null), missing -> NaN (null), JSON null -> 0, numbers -> that epoch ms.", () => {
  const forms = [
    "2026-01-15T10:00:00.000Z",
    "2026-01-15T10:00:00+02:00",
    "2026-01-15T10:00:00.5-05:30",
    "2026-01-15",
    "2026-01",
    "2026",
    "2026-01-15T10:00:00.123456789Z",
    "2026-01-15T10:00Z",
    "2026-01-15T24:00:00Z",
    "2026-02-30T00:00:00Z",
    "+002026-01-15T10:00:00Z",
    "",
    "not a date",
    null,
    1768471200000,
    0,
    undefined,
  ];
  const lines = [header()];
  let parent = null;
  forms.forEach((ts, i) => {
    const id = `t${String(i).padStart(2, "0")}`;
    const o = { type: "custom_message", id, parentId: parent, customType: "ts", content: `form ${i}: ${JSON.stringify(ts)}`, display: true };
    if (ts !== undefined) o.timestamp = ts;
    lines.push(J(o));
    parent = id;
  });
  lines.push(J({ type: "branch_summary", id: "bs", parentId: parent, timestamp: "2026-01-15T10:00:00.999999Z", fromId: "t00", summary: "bs ts" }));
  lines.push(J({ type: "compaction", id: "cp", parentId: "bs", timestamp: "2026-06-15T10:00:00-07:00", summary: "c", firstKeptEntryId: "t00", tokensBefore: 1 }));
  return lines;
});
add("timestamps-v8-legacy-forms", "§9 timestamps", "Forms outside ISO 8601 that V8's Date parser still accepts or rejects (space separator, lowercase t/z, RFC 2822, slashes, offset after a space), all with an explicit zone. pisession may choose to support only ISO and document the difference.", () => {
  const forms = ["2026-01-15 10:00:00Z", "2026-01-15t10:00:00z", "Thu, 15 Jan 2026 10:00:00 GMT", "2026/01/15 10:00:00 UTC", "2026-01-15T10:00:00 +0200", "15 January 2026 10:00 UTC"];
  const lines = [header()];
  let parent = null;
  forms.forEach((ts, i) => {
    const id = `v${i}`;
    lines.push(J({ type: "custom_message", id, parentId: parent, timestamp: ts, customType: "ts", content: ts, display: true }));
    parent = id;
  });
  return lines;
});
add("timestamps-no-offset-local-time", "§9 timestamps", "The only file without explicit offsets: a date-time without offset is LOCAL time in JS (date-only is UTC). Goldens are recorded with TZ=UTC, so local = UTC here.", () => [
  header(),
  J({ type: "custom_message", id: "n1", parentId: null, timestamp: "2026-01-15T10:00:00", customType: "ts", content: "no offset", display: true }),
  J({ type: "custom_message", id: "n2", parentId: "n1", timestamp: "2026-01-15T10:00:00.250", customType: "ts", content: "no offset with ms", display: true }),
  J({ type: "custom_message", id: "n3", parentId: "n2", timestamp: "2026-01-15", customType: "ts", content: "date only = UTC", display: true }),
]);

// ------------------------------------------------------------------ §10 convertToLlm
add("bash-execution-to-llm", "§10 convertToLlm", "bashExecution variants: ok, empty output, non-zero exit, cancelled (wins over exit code), null/missing exit code, truncated with and without path, excludeFromContext (dropped), backticks in command.", () => {
  const v = [
    { command: "ls", output: "a\nb", exitCode: 0, cancelled: false, truncated: false },
    { command: "true", output: "", exitCode: 0, cancelled: false, truncated: false },
    { command: "false", output: "err", exitCode: 1, cancelled: false, truncated: false },
    { command: "sleep 9", output: "", exitCode: 130, cancelled: true, truncated: false },
    { command: "x", output: "o", exitCode: null, cancelled: false, truncated: false },
    { command: "y", output: "o", cancelled: false, truncated: false },
    { command: "big", output: "lots", exitCode: 0, cancelled: false, truncated: true, fullOutputPath: "/tmp/full.log" },
    { command: "big2", output: "lots", exitCode: 2, cancelled: false, truncated: true },
    { command: "secret", output: "hidden", exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true },
    { command: "echo `date`", output: "```fence```", exitCode: -1, cancelled: false, truncated: false, excludeFromContext: false },
    { command: "neg", output: null, exitCode: "3", cancelled: 0, truncated: false },
  ];
  const lines = [header()];
  let parent = null;
  v.forEach((b, i) => {
    const id = `b${i}`;
    lines.push(msg(id, parent, { role: "bashExecution", ...b }));
    parent = id;
  });
  return lines;
});
add("custom-role-to-user", "§10 convertToLlm", "Stored role custom messages become user messages; string content is wrapped in one text block, arrays pass as is.", () => [
  header(),
  msg("c1", null, { role: "custom", customType: "x", content: "string", display: true }),
  msg("c2", "c1", { role: "custom", customType: "x", content: [{ type: "text", text: "array" }], display: false, details: { a: 1 } }),
]);
add("unknown-role-dropped", "§10 convertToLlm", "Message roles convertToLlm does not know (developer, tool, hookMessage in v3) stay in the context but are dropped from llm.", () => [
  header(),
  msg("d1", null, { role: "developer", content: "dev" }),
  msg("t1", "d1", { role: "tool", content: "t" }),
  msg("x1", "t1", { content: "no role" }),
  user("u1", "x1", "hi"),
]);
add("summaries-to-llm", "§10 convertToLlm", "branchSummary and compactionSummary become user messages with Pi's fixed prefix/suffix text.", () => [
  header(),
  user("u1", null, "old"),
  compaction("c1", "u1", "c1", { summary: "line1\nline2 <summary>" }),
  entry("branch_summary", "b1", "c1", { fromId: "zz", summary: "went elsewhere" }),
]);

add("stored-summary-roles", "§3 / §10", "Message entries whose stored role is branchSummary or compactionSummary (never written by Pi) pass through the context as is and convertToLlm still wraps them with the summary prefix/suffix.", () => [
  header(),
  msg("b1", null, { role: "branchSummary", summary: "stored branch summary", fromId: "x" }),
  msg("c1", "b1", { role: "compactionSummary", summary: "stored compaction summary", tokensBefore: 9 }),
]);

// ------------------------------------------------------------------ §11 system prompt
add("system-prompt-sections-and-tools-replay", "§11 system prompt", "Sections patched by name (null deletes, re-set keeps position, re-added goes last); tools removed then added by name; content text appended.", () => [
  header(),
  sys("s1", null, { sections: { base: "Base v1", agents: "AGENTS v1", date: "D1" }, toolsAdded: [tool("read"), tool("bash"), tool("edit")] }),
  user("u1", "s1", "hi"),
  sys("s2", "u1", { sections: { base: "Base v2", agents: null }, toolsRemoved: [{ name: "bash" }], toolsAdded: [tool("grep")] }),
  user("u2", "s2", "more"),
  sys("s3", "u2", { content: "Extra instruction", sections: { agents: "AGENTS v2", empty: "" }, toolsRemoved: [{ name: "read" }], toolsAdded: [tool("read"), { ...tool("edit"), description: "edit v2" }] }),
]);
add("system-prompt-content-array-and-string", "§11 system prompt", "Content as a string or text-block array (joined with \\n; non-text blocks ignored); empty texts dropped; several contents joined with \\n\\n.", () => [
  header(),
  sys("s1", null, { content: "First" }),
  sys("s2", "s1", { content: [{ type: "text", text: "Second a" }, { type: "image", data: "AA==", mimeType: "image/png" }, { type: "text", text: "Second b" }] }),
  sys("s3", "s2", { content: "" }),
  sys("s4", "s3", { content: [] }),
]);
add("system-prompt-none", "§11 system prompt", "No system messages: systemMessage null, systemPrompt \"\".", () => [header(), user("u1", null, "hi")]);
add("system-prompt-only-tools-removed", "§11 system prompt", "A system message with only toolsRemoved of unknown tools still yields a systemMessage (its timestamp is set), with empty content.", () => [header(), sys("s1", null, { toolsRemoved: [{ name: "ghost" }] }), user("u1", "s1", "hi")]);

// ------------------------------------------------------------------ §12 labels, name
add("labels-set-and-clear", "§12 labels", "Labels in file order: set, overwrite, clear with \"\" or missing label; a label may target another label; a label on an unknown id is stored by Pi but is not reported (golden labels are getLabel over existing entry ids); labels are tree entries (children of the leaf).", () => [
  header(),
  user("u1", null, "one"),
  asst("a1", "u1", "two"),
  entry("label", "l1", "a1", { targetId: "u1", label: "first" }),
  entry("label", "l2", "l1", { targetId: "u1", label: "renamed" }),
  entry("label", "l3", "l2", { targetId: "a1", label: "tmp" }),
  entry("label", "l4", "l3", { targetId: "a1", label: "" }),
  entry("label", "l5", "l4", { targetId: "l1", label: "label on label" }),
  entry("label", "l6", "l5", { targetId: "l1" }),
  entry("label", "l7", "l6", { targetId: "nosuchid", label: "dangling" }),
]);
add("session-name-latest-wins", "§12 name", "getSessionName(): the latest session_info in file order decides, even off the active branch.", () => [
  header(),
  entry("session_info", "n1", null, { name: "First name" }),
  user("u1", "n1", "hi"),
  entry("session_info", "n2", "u1", { name: "  Second name  " }),
  entry("session_info", "n3", "n1", { name: "Third name, other branch" }),
  user("u2", "u1", "leaf"),
]);
add("session-name-cleared-by-empty", "§12 name", "DIFFERS FROM SPEC TEXT: Pi 0.87.1 looks only at the latest session_info; an empty/blank/missing name there clears the name (undefined -> null), it does not fall back to an earlier non-empty name.", () => [
  header(),
  entry("session_info", "n1", null, { name: "Named" }),
  entry("session_info", "n2", "n1", { name: "   " }),
  user("u1", "n2", "hi"),
]);
add("session-name-missing-field", "§12 name", "Latest session_info without a name field: cleared (null).", () => [
  header(),
  entry("session_info", "n1", null, { name: "Named" }),
  entry("session_info", "n2", "n1", {}),
]);
add("session-name-non-string", "§12 name", "name: 42 makes name.trim throw in getSessionName (golden managerError; sessionName null). Context is unaffected.", () => [
  header(),
  entry("session_info", "n1", null, { name: 42 }),
  user("u1", "n1", "hi"),
]);

// ------------------------------------------------------------------ projection
add("projection-duplicate-primitive-entries", "projection", "Projection rows use entries.indexOf(sourceEntry): for equal primitive entries indexOf finds the first; here the default leaf is the second 7, reported at the index of the first.", () => [
  header(),
  user("u1", null, "hi"),
  "7",
  "7",
]);

// ------------------------------------------------------------------ write
mkdirSync(OUT, { recursive: true });
for (const name of readdirSync(OUT)) {
  if (name.endsWith(".jsonl") || name.endsWith(".golden.json")) rmSync(join(OUT, name));
}
const seen = new Set();
for (const c of cases) {
  if (seen.has(c.name)) throw new Error(`duplicate edge case ${c.name}`);
  seen.add(c.name);
  let data;
  if (Buffer.isBuffer(c.body)) data = c.body;
  else {
    const lines = c.body;
    data = lines.length === 0 ? "" : lines.join(c.eol) + (c.trailing ? c.eol : "");
  }
  writeFileSync(join(OUT, `${c.name}.jsonl`), data);
}
const esc = (s) => s.replace(/\|/g, "\\|");
const readme = [
  "# Hand-written edge cases",
  "",
  "One small session file per rule of `/work/shared/spec/session-format.md` (sections §1-§13),",
  "generated from the readable source `conformance/make-edge.mjs` (`node conformance/make-edge.mjs`).",
  "Each `X.jsonl` has `X.golden.json` next to it: Pi 0.87.1's own reading, recorded by",
  "`conformance/record.mjs` (format in `conformance/README.md`). Timestamps carry explicit `Z` or",
  "`+hh:mm` offsets except in `timestamps-no-offset-local-time.jsonl`;",
  "goldens are recorded with `TZ=UTC`. Where the \"What Pi does\" column and the spec text disagree,",
  "Pi wins (marked DIFFERS FROM SPEC TEXT).",
  "",
  "| File | Rule | What Pi 0.87.1 does |",
  "|---|---|---|",
  ...cases.map((c) => `| \`${c.name}.jsonl\` | ${esc(c.rule)} | ${esc(c.pi)} |`),
  "",
];
writeFileSync(join(OUT, "README.md"), readme.join("\n"));
console.error(`wrote ${cases.length} edge cases to ${OUT}`);
