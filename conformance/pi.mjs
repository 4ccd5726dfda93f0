// Loads one Pi version's internal modules by file path (the package's `exports` map
// hides dist/core/*, and the CLI needs Node 22, but these files run on Node 20).
//
// Which version: $PI_ORACLE_VERSION, else the primary one of pisession/pi_versions.json.
// Where from: see locate.mjs ($PI_ORACLE_DIR, conformance/.pi/<V>, conformance/node_modules).
// A folder holding any other version is never used.
process.env.TZ = "UTC";

import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CHECKED, locate, notFoundMessage, PRIMARY, wantedVersion } from "./locate.mjs";
import { DATA_CONFORMANCE, HERE, REPO } from "./paths.mjs";

export { CHECKED, DATA_CONFORMANCE, HERE, PRIMARY, REPO };
export const PI_VERSION = wantedVersion();

const found = locate(PI_VERSION);
if (!found) throw new Error(notFoundMessage(PI_VERSION));
const { agent, ai } = found;
const load = (p) => import(pathToFileURL(p).href);

export const sessionManager = await load(join(agent, "dist", "core", "session-manager.js"));
export const messages = await load(join(agent, "dist", "core", "messages.js"));
export const transcript = await load(join(ai, "dist", "utils", "transcript.js"));
export const PI_PATHS = { agent, ai, nodeModules: found.nodeModules };
