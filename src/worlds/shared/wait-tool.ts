import { z } from "zod";
import type { ToolResult } from "../../core/contracts.ts";
import { defineTool } from "../../core/tool.ts";

/** What `wait` needs of a world's tool context. */
interface WaitContext {
  readonly state: { readonly now: number };
  spend(seconds: number): void;
}

/** The `wait` tool every tool world offers: lets virtual time pass (1..3600 s) before the next call. */
export const waitTool = defineTool({
  name: "wait",
  description: "Let time pass (virtual seconds, 1..3600) before the next call.",
  input: z.object({ seconds: z.number().int().min(1).max(3600).describe("Seconds to wait.") }).strict(),
  run(args, ctx: WaitContext): ToolResult {
    ctx.spend(args.seconds);
    return { ok: true, now: ctx.state.now + args.seconds };
  },
});
