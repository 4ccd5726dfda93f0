#!/usr/bin/env node
// The fuzzer's oracle: one long-lived Node process that answers "what does Pi 0.87.1
// make of this file?" for file after file, with the conformance recorder's own
// per-file logic (conformance/record.mjs: Pi's loader, migration, context, projection,
// convertToLlm and system prompt at the default leaf and several others, cycles found
// before Pi is called, since Pi would loop forever on them).
//
// Protocol: one JSON request per line on stdin, one JSON answer per line on stdout.
//   {"id": N, "path": "/tmp/x.jsonl"}
//   -> {"id": N, "golden": {...record.mjs golden...},
//       "text": {"context": JSON.stringify(context, null, 2), "llm": ...}}   (default leaf)
//   -> {"id": N, "error": "..."} when recording itself threw (reported, not compared)
// "text" holds Pi's own indented JSON text of the default leaf's context and llm
// messages (what `pisession context` promises to print); a field is absent when the
// default case has none, and "textError" says why when JSON.stringify threw.
process.env.TZ = "UTC";

import { createInterface } from "node:readline";
import { recordFile } from "../record.mjs";

function errorText(err) {
  return String(err && err.message !== undefined ? err.message : err);
}

function answer(request) {
  const out = { id: request.id };
  if (request.dates) {
    // {"id", "dates": [...]}: new Date(value).getTime() for each value (NaN -> null)
    out.dates = request.dates.map((d) => {
      const t = new Date(d).getTime();
      return Number.isNaN(t) ? null : t;
    });
    return out;
  }
  let golden;
  try {
    golden = recordFile(request.path);
  } catch (err) {
    out.error = errorText(err);
    return out;
  }
  out.golden = golden;
  const first = golden.cases[0];
  if (first && first.leaf === null && first.context !== undefined) {
    const text = {};
    try {
      text.context = JSON.stringify(first.context, null, 2);
      if (first.llm !== undefined) text.llm = JSON.stringify(first.llm, null, 2);
    } catch (err) {
      out.textError = errorText(err);
    }
    out.text = text;
  }
  return out;
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let request;
  let reply;
  try {
    request = JSON.parse(line);
    reply = JSON.stringify(answer(request));
  } catch (err) {
    // The golden itself cannot be written (e.g. nested beyond JSON.stringify's reach).
    reply = JSON.stringify({ id: request?.id, error: `unserialisable: ${errorText(err)}` });
  }
  process.stdout.write(reply + "\n");
}
