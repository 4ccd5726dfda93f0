// The recorder's Pi extension (loaded with `pi -e recorder-ext.ts`): commands the driver
// sends as prompts (`/rec-...`) to write what only extensions write: custom entries,
// custom messages, context edits, labels, tree navigation and tool-set changes.
//
//   /rec-entry TEXT             pi.appendEntry("recorder-state", {step: TEXT})
//   /rec-message TEXT           pi.sendMessage({customType: "recorder-note", ...}) (stored, no turn)
//   /rec-label WHICH LABEL      pi.setLabel(entry, LABEL) ("-" clears); WHICH: user:N, assistant:N, last
//   /rec-tree WHICH [summary] [LABEL]   ctx.navigateTree(entry, {summarize, label})
//   /rec-tools a,b,c            pi.setActiveTools([...])
//   /rec-edit drop|replace      the next completed turn ends with a context_edit of its reply
//                               (null, or a replacement text) and a hidden custom_message
// WHICH counts message entries of that role in file order from 1 (negative: from the end).

function pick(ctx: any, which: string): string {
  const entries = ctx.sessionManager.getEntries();
  if (which === "last") return entries[entries.length - 1].id;
  const [role, nText] = which.split(":");
  const n = Number(nText);
  const found = entries.filter((e: any) => e.type === "message" && e.message?.role === role);
  const entry = n > 0 ? found[n - 1] : found[found.length + n];
  if (!entry) throw new Error(`recorder-ext: no ${which}`);
  return entry.id;
}

export default function (pi: any) {
  let pendingEdit: string | undefined;

  pi.registerCommand("rec-entry", {
    description: "recorder: a custom entry",
    handler: async (args: string) => {
      pi.appendEntry("recorder-state", { step: args.trim(), tags: ["a", "b"] });
    },
  });

  pi.registerCommand("rec-message", {
    description: "recorder: a custom message",
    handler: async (args: string) => {
      pi.sendMessage({ customType: "recorder-note", content: args.trim(), display: true, details: { from: "recorder" } });
    },
  });

  pi.registerCommand("rec-label", {
    description: "recorder: a label",
    handler: async (args: string, ctx: any) => {
      const [which, label] = args.trim().split(/\s+/);
      pi.setLabel(pick(ctx, which), label === "-" ? undefined : label);
    },
  });

  pi.registerCommand("rec-tree", {
    description: "recorder: tree navigation",
    handler: async (args: string, ctx: any) => {
      const [which, mode, label] = args.trim().split(/\s+/);
      await ctx.waitForIdle();
      await ctx.navigateTree(pick(ctx, which), {
        summarize: mode === "summary",
        ...(label ? { label } : {}),
      });
    },
  });

  pi.registerCommand("rec-tools", {
    description: "recorder: the active tools",
    handler: async (args: string) => {
      pi.setActiveTools(args.trim().split(",").filter(Boolean));
    },
  });

  pi.registerCommand("rec-edit", {
    description: "recorder: a context edit after the next turn",
    handler: async (args: string) => {
      pendingEdit = args.trim() || "drop";
    },
  });

  pi.on("turn_end", async (event: any) => {
    if (!pendingEdit || event.outcome !== "completed" || event.toolResults?.length) return;
    const mode = pendingEdit;
    pendingEdit = undefined;
    return {
      entries: [
        ...event.entries,
        {
          type: "context_edit",
          targetId: event.messageEntryId,
          replacement: mode === "drop" ? null : { content: "(answer replaced by the recorder)" },
        },
        { type: "custom_message", customType: "recorder-redo", content: "Answer again, shorter.", display: false },
      ],
      continue: true,
    };
  });
}
