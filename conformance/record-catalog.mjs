// Writes pisession/model_catalog.json: for each checked Pi version, the API and the image
// input of every model in pi-ai's catalog (dist/models.generated.js), the two facts the
// request step needs about a target model (pisession.request.target_model).
//
//   node conformance/record-catalog.mjs        (re-run after changing pi_versions.json)
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CHECKED, locate, notFoundMessage } from "./locate.mjs";
import { REPO } from "./paths.mjs";

const out = {
  about:
    "Pi's model catalog as the request step needs it (written by conformance/record-catalog.mjs from pi-ai's dist/models.generated.js): per checked Pi version, provider -> api -> input -> model ids. 'image' lists the models whose input includes images; 'text' the text-only ones.",
};
for (const version of CHECKED) {
  const found = locate(version);
  if (!found) throw new Error(notFoundMessage(version));
  const { MODELS } = await import(pathToFileURL(join(found.ai, "dist", "models.generated.js")).href);
  const table = {};
  for (const provider of Object.keys(MODELS).sort()) {
    for (const id of Object.keys(MODELS[provider]).sort()) {
      const model = MODELS[provider][id];
      const input = model.input.includes("image") ? "image" : "text";
      ((table[provider] ??= {})[model.api] ??= { image: [], text: [] })[input].push(id);
    }
  }
  out[version] = table;
}
// How transformMessages treats readable thinking from another model (read in each
// version's dist/api/transform-messages.js): sent as a text block, or dropped.
out.foreignThinking = { "0.87.1": "as text", "1.6.0": "dropped" };
for (const version of CHECKED) if (!(version in out.foreignThinking)) throw new Error(`read ${version}'s transform-messages.js and add it to foreignThinking`);
const file = join(REPO, "pisession", "model_catalog.json");
writeFileSync(file, `${JSON.stringify(out, null, 1)}\n`);
console.log(`wrote ${file}`);
