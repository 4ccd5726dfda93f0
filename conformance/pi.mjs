// Locates and loads Pi 0.87.1's internal modules by file path (the package's
// `exports` map hides dist/core/*, and the CLI needs Node 22, but these files
// run on Node 20).
//
// Lookup: $PI_ORACLE_DIR/node_modules/... when PI_ORACLE_DIR is set,
// else <this folder>/node_modules/... (created by `npm install` in conformance/).
process.env.TZ = "UTC";

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DATA_CONFORMANCE, HERE, REPO } from "./paths.mjs";

export { DATA_CONFORMANCE, HERE, REPO };
export const PI_VERSION = "0.87.1";

export function nodeModulesDir() {
  const oracle = process.env.PI_ORACLE_DIR;
  return oracle ? join(oracle, "node_modules") : join(HERE, "node_modules");
}

function locate() {
  const nm = nodeModulesDir();
  const agent = join(nm, "@earendil-works", "pi-coding-agent");
  if (!existsSync(join(agent, "package.json"))) {
    throw new Error(
      `Pi not found at ${agent}. Run \`npm install --ignore-scripts\` in conformance/ ` +
        `or set PI_ORACLE_DIR to a folder whose node_modules holds @earendil-works/pi-coding-agent@${PI_VERSION}.`,
    );
  }
  const version = JSON.parse(readFileSync(join(agent, "package.json"), "utf8")).version;
  if (version !== PI_VERSION) {
    throw new Error(`Expected @earendil-works/pi-coding-agent ${PI_VERSION}, found ${version} at ${agent}`);
  }
  // pi-ai as session-manager.js itself resolves it: nested copy first, then hoisted.
  const candidates = [
    join(agent, "node_modules", "@earendil-works", "pi-ai"),
    join(nm, "@earendil-works", "pi-ai"),
  ];
  const ai = candidates.find((p) => existsSync(join(p, "package.json")));
  if (!ai) throw new Error(`@earendil-works/pi-ai not found next to ${agent}`);
  return { agent, ai };
}

const { agent, ai } = locate();
const load = (p) => import(pathToFileURL(p).href);

export const sessionManager = await load(join(agent, "dist", "core", "session-manager.js"));
export const messages = await load(join(agent, "dist", "core", "messages.js"));
export const transcript = await load(join(ai, "dist", "utils", "transcript.js"));
export const PI_PATHS = { agent, ai };
