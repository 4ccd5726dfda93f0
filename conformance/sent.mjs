// pi-ai's own last step before a request, loaded by file path from a Pi version
// (like pi.mjs): transformMessages (dist/api/transform-messages.js) and, for each provider
// API, its normalizeToolCallId, read out of the API's file (the functions are private to
// it, so their source is cut out between two markers and compiled with what they use).
// Date.now() is fixed (NOW) so the tool results pi-ai writes are reproducible.
//
//   sentFor(messages, model)                  with $PI_ORACLE_VERSION (else the primary one)
//   (await piAiStep("1.6.0")).sentFor(...)    with any installed checked version
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { locate, notFoundMessage, wantedVersion } from "./locate.mjs";

export const PI_VERSION = wantedVersion();
export const NOW = 1700000000000;
const load = (p) => import(pathToFileURL(p).href);

/** pi-ai's request step of Pi `version`: {version, transformMessages, normalizerFor, sentFor}. */
export async function piAiStep(version) {
  const found = locate(version);
  if (!found) throw new Error(notFoundMessage(version));
  const api = (name) => join(found.ai, "dist", "api", name);
  const { transformMessages } = await load(api("transform-messages.js"));
  const { shortHash } = await load(join(found.ai, "dist", "utils", "hash.js"));

  /** The source text of `file` from `start` (included) to `end` (excluded). */
  function cut(file, start, end) {
    const text = readFileSync(api(file), "utf8");
    const from = text.indexOf(start);
    const to = text.indexOf(end, from + start.length);
    if (from < 0 || to < 0) throw new Error(`${file}: cannot find ${start}`);
    return text.slice(from, to);
  }

  const anthropic = new Function(`${cut("anthropic-messages.js", "function normalizeToolCallId(id) {", "\nfunction ")}\nreturn normalizeToolCallId;`)();
  const bedrock = new Function(`${cut("bedrock-converse-stream.js", "function normalizeToolCallId(id) {", "\nfunction ")}\nreturn normalizeToolCallId;`)();
  const completions = new Function("model", "shortHash", `${cut("openai-completions.js", "const normalizeToolCallId = (id) => {", "const transformedMessages =")}\nreturn normalizeToolCallId;`);
  const google = new Function(
    "model",
    `${cut("google-shared.js", "export function requiresToolCallId(modelId) {", "function supportsMultimodalFunctionResponse").replace("export ", "")}
    ${cut("google-shared.js", "const normalizeToolCallId = (id) => {", "const transformedMessages =")}\nreturn normalizeToolCallId;`,
  );
  const responses = new Function("model", "allowedToolCallProviders", "shortHash", `${cut("openai-responses-shared.js", "const normalizeIdPart = (part) => {", "const transformedMessages =")}\nreturn normalizeToolCallId;`);
  const mistralSource = cut("mistral-conversations.js", "function createMistralToolCallIdNormalizer() {", "function formatMistralError");
  const mistral = new Function("shortHash", `const MISTRAL_TOOL_CALL_ID_LENGTH = 9;\n${mistralSource}\nreturn createMistralToolCallIdNormalizer();`);

  function providersOf(file, name) {
    const match = readFileSync(api(file), "utf8").match(new RegExp(`const ${name} = new Set\\((\\[[^\\]]*\\])\\)`));
    return new Set(JSON.parse(match[1]));
  }
  const RESPONSES = {
    "openai-responses": providersOf("openai-responses.js", "OPENAI_TOOL_CALL_PROVIDERS"),
    "openai-codex-responses": providersOf("openai-codex-responses.js", "CODEX_TOOL_CALL_PROVIDERS"),
    "azure-openai-responses": providersOf("azure-openai-responses.js", "AZURE_TOOL_CALL_PROVIDERS"),
  };

  /** The normalizeToolCallId the provider API of `model` passes to transformMessages (a new one per request). */
  function normalizerFor(model) {
    switch (model.api) {
      case "anthropic-messages":
        return anthropic;
      case "bedrock-converse-stream":
        return bedrock;
      case "openai-completions": {
        const normalize = completions(model, shortHash);
        return (id) => normalize(id);
      }
      case "google-generative-ai":
      case "google-vertex":
        return google(model);
      case "mistral-conversations": {
        const normalize = mistral(shortHash);
        return (id) => normalize(id);
      }
      default:
        if (model.api in RESPONSES) return responses(model, RESPONSES[model.api], shortHash);
        return undefined;
    }
  }

  /** pi-ai's transform of `messages` for `model`, Date.now() fixed at NOW. */
  function sentFor(messages, model) {
    const realNow = Date.now;
    Date.now = () => NOW;
    try {
      return transformMessages(messages, model, normalizerFor(model));
    } finally {
      Date.now = realNow;
    }
  }
  return { version, transformMessages, normalizerFor, sentFor };
}

const primary = await piAiStep(PI_VERSION);
export const { transformMessages, normalizerFor, sentFor } = primary;
