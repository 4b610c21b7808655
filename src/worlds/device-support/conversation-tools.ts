import { z } from "zod";
import type { ToolResult } from "../../core/contracts.ts";
import { defineTool, type ToolDef, toolError } from "../../core/tool.ts";
import type { WorldToolContext } from "../../core/tool-world.ts";
import { idArg, notFound } from "../shared/index.ts";
import type { DeviceSupportV2State } from "./conversation-state.ts";
import { TOOLS } from "./tools.ts";

type Ctx = WorldToolContext<DeviceSupportV2State>;

const caseId = idArg("The case id, e.g. C-01234.");
const findCase = (ctx: Ctx, case_id: string) => ctx.state.entities.cases.find((c) => c.case_id === case_id);

/**
 * `send_message` of device-support@2: the message joins the case's conversation; the customer's reply
 * (simulated before the call, see `DeviceSupportWorldV2.step`) arrives later in virtual time, through a
 * background job, and `read_messages` shows it from then on.
 */
const sendMessage = defineTool({
  name: "send_message",
  description:
    "Send a message to the customer of a case. The customer's reply arrives later: read it with read_messages.",
  input: z.object({ case_id: caseId, text: z.string().min(1).max(4000) }).strict(),
  run(args, ctx: Ctx): ToolResult {
    if (!findCase(ctx, args.case_id)) return notFound("case", args.case_id);
    const e = ctx.state.entities;
    const message_id = ctx.newId("MSG", "message");
    const t = ctx.state.now;
    e.messages.push({ message_id, case_id: args.case_id, text: args.text, t });
    e.thread.push({ message_id, case_id: args.case_id, from: "agent", text: args.text, t, visible: true });
    const reply = e.outbox;
    if (reply) {
      const reply_id = ctx.newId("MSG", "message");
      const at = t + Math.max(1, Math.round(reply.delay));
      e.thread.push({
        message_id: reply_id,
        case_id: args.case_id,
        from: "customer",
        text: reply.text,
        t: at,
        visible: false,
        acts: reply.acts,
        reply_to: message_id,
        by: reply.by,
      });
      ctx.schedule(at, "customer.visible", { message_id: reply_id });
    }
    return { ok: true, message_id };
  },
});

const readMessages = defineTool({
  name: "read_messages",
  description:
    "Read the conversation with the customer of a case: every message sent and every reply that has arrived, oldest first.",
  input: z.object({ case_id: caseId }).strict(),
  run(args, ctx: Ctx): ToolResult {
    if (!findCase(ctx, args.case_id)) return notFound("case", args.case_id);
    const messages = ctx.state.entities.thread
      .filter((m) => m.case_id === args.case_id && m.visible)
      .map((m) => ({ message_id: m.message_id, from: m.from, text: m.text, t: m.t }));
    return { ok: true, messages };
  },
});

const addAddress = defineTool({
  name: "add_address",
  description:
    "Add a shipping address to the customer of a case (a write: only with an address the customer confirmed). Returns its address_id.",
  input: z
    .object({
      case_id: caseId,
      line: z.string().min(1).max(200).describe("The address line, as the customer gave it."),
    })
    .strict(),
  run(args, ctx: Ctx): ToolResult {
    const c = findCase(ctx, args.case_id);
    if (!c) return notFound("case", args.case_id);
    const customer = ctx.state.entities.customers.find((x) => x.customer_id === c.customer_id);
    if (!customer) return toolError("not_found", `case ${args.case_id} has no customer`);
    const address_id = ctx.newId("A", "address");
    customer.addresses.push({ address_id, line: args.line });
    ctx.logEffect({
      tool: "add_address",
      args: { case_id: args.case_id, line: args.line, address_id },
      authorized: true,
      committed: true,
      outcome: "committed",
      ref: address_id,
    });
    return { ok: true, address_id };
  },
});

/** The tools of device-support@2: those of @1 (its send_message replaced), then read_messages and add_address. */
// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous table of tools, each typed at its definition
export const TOOLS_V2: readonly ToolDef<Ctx, any>[] = [
  // biome-ignore lint/suspicious/noExplicitAny: the @1 tools run on the @2 state, a superset of theirs
  ...TOOLS.map((t) => (t.name === "send_message" ? sendMessage : (t as ToolDef<Ctx, any>))),
  readMessages,
  addAddress,
];
