#!/usr/bin/env node
// Records how Node's own Array.prototype.sort (V8's TimSort, array-sort.tq) orders
// arrays of 0 to 600 items with comparators that give NaN, ties and inconsistent
// answers: data/v8sort/cases.json, read by tests/test_v8_sort.py.
//
//   node conformance/v8sort.mjs            # rewrites data/v8sort/cases.json
//   node conformance/v8sort.mjs --stdout   # prints it (the test compares)
//
// Each case: {"kind", "keys"} and Node's "order" (the indexes 0..n-1 sorted). Kinds:
//   "minus":  (a, b) => keys[a] - keys[b], keys numbers or null (NaN)
//   "table":  (a, b) => keys[(a * 31 + b * 17) % keys.length], an inconsistent comparator
//             (the same pair can answer both ways), entries numbers or null (NaN)
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const OUT = join(dirname(dirname(fileURLToPath(import.meta.url))), "data", "v8sort", "cases.json");
let seed = 20261203;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed / 2147483648);
const pick = (list) => list[Math.floor(rand() * list.length)];

function keysFor(n, style) {
  const keys = [];
  for (let i = 0; i < n; i++) {
    if (style === "nan") keys.push(rand() < 0.1 ? null : Math.floor(rand() * 1000));
    else if (style === "equal") keys.push(rand() < 0.05 ? null : pick([1, 2, 3]));
    else if (style === "runs") keys.push(rand() < 0.03 ? null : Math.floor(i / 40) % 2 ? 1000 - i : i + Math.floor(rand() * 3));
    else if (style === "descending") keys.push(rand() < 0.02 ? null : n - i - (i % 5 === 0 ? 7 : 0));
    else keys.push(rand() < 0.1 ? null : pick([-1, 0, 1, 2, -3]));
  }
  return keys;
}

function order(kind, keys, n) {
  const k = keys.map((v) => (v === null ? NaN : v));
  const indexes = Array.from({ length: n }, (_, i) => i);
  if (kind === "minus") return indexes.sort((a, b) => k[a] - k[b]);
  return indexes.sort((a, b) => k[(a * 31 + b * 17) % k.length]);
}

const sizes = [0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 66, 100, 103, 127, 128, 129, 200, 255, 256, 257, 300, 400, 511, 512, 513, 600];
for (let i = 0; i < 40; i++) sizes.push(64 + Math.floor(rand() * 537));
const cases = [];
for (const n of sizes) {
  for (const style of ["nan", "equal", "runs", "descending"]) {
    const keys = keysFor(n, style);
    cases.push({ kind: "minus", style, keys, order: order("minus", keys, n) });
  }
  if (n > 0) {
    const keys = keysFor(Math.max(n, 7), "table");
    cases.push({ kind: "table", style: "table", size: n, keys, order: order("table", keys, n) });
  }
}
const text = JSON.stringify({ node: process.version, cases }) + "\n";
if (process.argv.includes("--stdout")) process.stdout.write(text);
else {
  writeFileSync(OUT, text);
  console.log(`${cases.length} cases in ${OUT}`);
}
