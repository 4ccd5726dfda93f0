// Pi 0.87.1's own reading of a session file, as a whole process, for benchmarks/bench.py:
//   node benchmarks/pi_context.mjs FILE > /dev/null
// loadEntriesFromFile -> migrateSessionEntries -> buildSessionContext(entries without the
// header, default leaf) -> JSON.stringify on stdout. The same steps Pi takes to open a
// session. Pi is imported by file path (its `exports` map hides dist/core/*) from
// $PI_ORACLE_DIR/node_modules when PI_ORACLE_DIR is set, else conformance/node_modules.
// Note: loadEntriesFromFile appends a newline to a file that lacks one; the benchmark
// files always end with a newline, so the file is not modified.
import { existsSync, readFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

process.env.TZ = "UTC";
const HERE = dirname(fileURLToPath(import.meta.url));
const nodeModules = process.env.PI_ORACLE_DIR
  ? join(process.env.PI_ORACLE_DIR, "node_modules")
  : join(HERE, "..", "conformance", "node_modules");
const agent = join(nodeModules, "@earendil-works", "pi-coding-agent");
if (!existsSync(join(agent, "package.json"))) {
  process.stderr.write(`Pi not found at ${agent}\n`);
  process.exit(3);
}
const version = JSON.parse(readFileSync(join(agent, "package.json"), "utf8")).version;
if (process.argv[2] === "--version") {
  process.stdout.write(version + "\n");
  process.exit(0);
}
const file = process.argv[2];
if (!file) {
  process.stderr.write("usage: node pi_context.mjs FILE\n");
  process.exit(2);
}
const sm = await import(pathToFileURL(join(agent, "dist", "core", "session-manager.js")).href);
const entries = sm.loadEntriesFromFile(file);
sm.migrateSessionEntries(entries);
const context = sm.buildSessionContext(entries.filter((e) => e.type !== "session"));
const text = JSON.stringify(context);
// writeSync in a loop: process.stdout.write may be asynchronous on pipes.
const buf = Buffer.from(text + "\n", "utf8");
let offset = 0;
while (offset < buf.length) offset += writeSync(1, buf, offset);
