// Runs .ci/pyodide/probe.py in Pyodide under Node, offline (called by check.py).
//
//   node run.mjs PYODIDE_DIR PROBE_PY OUT_JSON WHEEL...
//
// Pyodide comes from npm's `pyodide` package (the core: Python, its standard library and
// the lock file, no package wheels); the wheels are local files. Every request that is
// not a local file is refused and recorded. After the probe (which runs `python -m
// pisession` and `__main__.run()`), more Python runs: the runtime must still be alive.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [pyodideDir, probePath, outPath, ...wheels] = process.argv.slice(2);
const refused = [];
const localFetch = globalThis.fetch;
globalThis.fetch = async (resource, ...rest) => {
  const url = String(resource?.url ?? resource);
  if (url.startsWith("file:")) return localFetch(resource, ...rest);
  refused.push(url);
  throw new Error(`the Pyodide check is offline: refused ${url}`);
};

const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const printed = [];
const pyodide = await loadPyodide({
  indexURL: path.resolve(pyodideDir) + path.sep,
  stdout: (line) => printed.push(line),
  stderr: (line) => printed.push(line),
});
const loadErrors = [];
await pyodide.loadPackage(
  wheels.map((w) => path.resolve(w)),
  { messageCallback: () => {}, errorCallback: (m) => loadErrors.push(m) },
);

pyodide.FS.mkdirTree("/probe");
pyodide.FS.writeFile("/probe/probe.py", readFileSync(probePath, "utf8"));
let result = null;
let error = null;
try {
  result = pyodide.runPython(`
import json, sys
sys.path.insert(0, "/probe")
import probe
json.dumps(probe.probe(), sort_keys=True)
`);
} catch (exc) {
  error = String(exc?.message ?? exc);
}
let alive = false;
try {
  alive = pyodide.runPython("40 + 2") === 42;
} catch (exc) {
  error = (error ? error + "\n" : "") + "after the probe: " + String(exc?.message ?? exc);
}
let versions = "{}";
if (alive) {
  versions = pyodide.runPython(`
import json, sys
from importlib.metadata import version
names = ("pisession", "msgspec", "networkx", "tzdata", "wcwidth")
json.dumps({"python": sys.version.split()[0], "platform": sys.platform,
            **{name: version(name) for name in names}})
`);
}
writeFileSync(
  outPath,
  JSON.stringify({
    pyodide: pyodide.version,
    versions: JSON.parse(versions),
    result: result === null ? null : JSON.parse(result),
    error,
    alive,
    refused,
    loadErrors,
    printed: printed.slice(-40),
  }),
);
