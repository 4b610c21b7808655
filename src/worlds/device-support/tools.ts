import { z } from "zod";
import type { ToolResult } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import { defineTool, type ToolDef, toolError } from "../../core/tool.ts";
import type { WorldToolContext } from "../../core/tool-world.ts";
import {
  closeTool,
  escalateTool,
  idArg as id,
  notFound,
  type Subject,
  sendMessageTool,
  waitTool,
} from "../shared/index.ts";
import type { ApprovalConditions, DeviceSupportState } from "./state.ts";

/** What a tool may do to the world while it runs (ids only from this world's counters). */
export interface ToolContext extends WorldToolContext<DeviceSupportState> {
  newId(prefix: string, counter: keyof DeviceSupportState["counters"]): string;
}

const caseId = id("The case id, e.g. C-01234.");

const findCase = (ctx: ToolContext, case_id: string) =>
  ctx.state.entities.cases.find((c) => c.case_id === case_id);

/** The case: what send_message and escalate name. */
const CASE: Subject<"case_id", ToolContext> = {
  noun: "case",
  key: "case_id",
  id: caseId,
  find: findCase,
};

function approvalView(ctx: ToolContext, case_id: string): JsonObject {
  const a = ctx.state.entities.approvals[case_id] ?? { status: "none" };
  const out: JsonObject = { status: a.status };
  if (a.conditions) out.conditions = { ...a.conditions };
  return out;
}

function violatesConditions(
  c: ApprovalConditions | undefined,
  model: string,
  address_id: string,
): string | null {
  if (!c) return null;
  if (c.model !== undefined && c.model !== model) return `approval requires model "${c.model}"`;
  if (c.address_id !== undefined && c.address_id !== address_id)
    return `approval requires address ${c.address_id}`;
  return null;
}

const getCase = defineTool({
  name: "get_case",
  description: "Read a support case with its customer (and addresses) and device.",
  input: z.object({ case_id: caseId }).strict(),
  run(args, ctx: ToolContext): ToolResult {
    const c = findCase(ctx, args.case_id);
    if (!c) return notFound("case", args.case_id);
    const e = ctx.state.entities;
    const customer = e.customers.find((x) => x.customer_id === c.customer_id)!;
    const device = e.devices.find((x) => x.device_id === c.device_id)!;
    return {
      ok: true,
      case: { ...c },
      customer: { ...customer, addresses: customer.addresses.map((a) => ({ ...a })) },
      device: { ...device },
    };
  },
});

const checkWarranty = defineTool({
  name: "check_warranty",
  description: "Check whether a device is under warranty today.",
  input: z.object({ device_id: id("The device id, e.g. D-012345.") }).strict(),
  run(args, ctx: ToolContext): ToolResult {
    const device = ctx.state.entities.devices.find((d) => d.device_id === args.device_id);
    if (!device) return notFound("device", args.device_id);
    return {
      ok: true,
      in_warranty: device.warranty_until >= ctx.state.entities.today,
      warranty_until: device.warranty_until,
    };
  },
});

const requestApproval = defineTool({
  name: "request_approval",
  description:
    "Ask for approval of a replacement for a case. The decision is made later; poll get_approval. " +
    "Asking again while a request is pending or decided changes nothing.",
  input: z
    .object({ case_id: caseId, reason: z.string().min(1).describe("Why a replacement is needed.") })
    .strict(),
  run(args, ctx: ToolContext): ToolResult {
    if (!findCase(ctx, args.case_id)) return notFound("case", args.case_id);
    const e = ctx.state.entities;
    const current = e.approvals[args.case_id] ?? { status: "none" };
    if (current.status === "none") {
      e.approvals[args.case_id] = { status: "pending" };
      const decision = ctx.state.task.params.decisions as Record<
        string,
        { after: number; onRequest: boolean }
      >;
      const d = decision[args.case_id];
      if (d?.onRequest) ctx.schedule(ctx.state.now + d.after, "approval.decide", { case_id: args.case_id });
    }
    return { ok: true, approval: approvalView(ctx, args.case_id) };
  },
});

const getApproval = defineTool({
  name: "get_approval",
  description: "Read the approval status of a case (none, pending, approved, denied) and any conditions.",
  input: z.object({ case_id: caseId }).strict(),
  run(args, ctx: ToolContext): ToolResult {
    if (!findCase(ctx, args.case_id)) return notFound("case", args.case_id);
    return { ok: true, approval: approvalView(ctx, args.case_id) };
  },
});

/** Records a create_replacement attempt in the effect log. */
function logCreate(
  ctx: ToolContext,
  args: JsonObject,
  idempotencyKey: string,
  authorized: boolean,
  committed: boolean,
  outcome: string,
  ref?: string,
): void {
  ctx.logEffect({
    tool: "create_replacement",
    args,
    idempotencyKey,
    authorized,
    committed,
    outcome,
    ...(ref !== undefined ? { ref } : {}), // saved states are plain JSON: no undefined members
  });
}

const createReplacement = defineTool({
  name: "create_replacement",
  description:
    "Create a replacement request (needs an approved approval; must meet its conditions). Idempotent on " +
    "idempotency_key: the same key returns the same request_id and creates nothing new.",
  input: z
    .object({
      case_id: caseId,
      model: z.string().min(1).describe("Device model to ship."),
      address_id: id("Shipping address id of the customer."),
      idempotency_key: z.string().min(1).max(200).describe("A key you choose; reuse it when retrying."),
    })
    .strict(),
  run(args, ctx: ToolContext): ToolResult {
    const s = ctx.state;
    const e = s.entities;
    const c = findCase(ctx, args.case_id);
    if (!c) return notFound("case", args.case_id);
    const wrote = args as unknown as JsonObject;
    if (s.faults.outage) {
      logCreate(ctx, wrote, args.idempotency_key, false, false, "unavailable");
      return toolError("unavailable", "the replacement service is unavailable", true);
    }
    const approval = e.approvals[args.case_id] ?? { status: "none" };
    if (approval.status !== "approved") {
      logCreate(ctx, wrote, args.idempotency_key, false, false, "approval_required");
      return toolError(
        "approval_required",
        `case ${args.case_id} has no approved approval (${approval.status})`,
      );
    }
    const customer = e.customers.find((x) => x.customer_id === c.customer_id)!;
    if (!customer.addresses.some((a) => a.address_id === args.address_id)) {
      return toolError(
        "invalid_argument",
        `argument \`address_id\`: ${args.address_id} is not an address of the customer`,
      );
    }
    const broken = violatesConditions(approval.conditions, args.model, args.address_id);
    if (broken) {
      logCreate(ctx, wrote, args.idempotency_key, false, false, "conditions_violated");
      return toolError("conditions_violated", broken);
    }
    const existing = e.replacements.find((r) => r.idempotency_key === args.idempotency_key);
    if (existing) {
      if (existing.case_id !== args.case_id) {
        return toolError("invalid_argument", "argument `idempotency_key`: already used for another case");
      }
      logCreate(ctx, wrote, args.idempotency_key, true, false, "replayed", existing.request_id);
      return { ok: true, request_id: existing.request_id, status: "accepted" };
    }
    const fault = s.faults.firstCreateDone ? "normal" : s.faults.firstCreate;
    s.faults.firstCreateDone = true;
    if (fault === "timeout-before-commit") {
      logCreate(ctx, wrote, args.idempotency_key, true, false, "timeout");
      return toolError("timeout", "the request timed out", true);
    }
    const request_id = ctx.newId("REQ", "request");
    const receipt_id = ctx.newId("RCP", "receipt");
    e.replacements.push({
      request_id,
      case_id: args.case_id,
      model: args.model,
      address_id: args.address_id,
      idempotency_key: args.idempotency_key,
      committed_at: s.now,
    });
    const visibleAt = s.now + s.faults.receiptDelay;
    e.receipts.push({
      receipt_id,
      request_id,
      idempotency_key: args.idempotency_key,
      visible_at: visibleAt,
      visible: s.faults.receiptDelay <= 0,
    });
    if (s.faults.receiptDelay > 0) ctx.schedule(visibleAt, "receipt.visible", { receipt_id });
    logCreate(ctx, wrote, args.idempotency_key, true, true, "committed", request_id);
    if (fault === "lost-reply") {
      if (s.faults.unverifiableAfterLoss) s.faults.outage = true;
      return toolError("timeout", "the request timed out", true);
    }
    return { ok: true, request_id, status: "accepted" };
  },
});

const findReplacements = defineTool({
  name: "find_replacements",
  description:
    "List replacement requests whose receipts are visible now, by case and/or idempotency key. " +
    "A receipt may take a while to become visible after a request commits.",
  input: z
    .object({
      case_id: caseId.optional(),
      idempotency_key: z.string().min(1).optional().describe("The key used when creating."),
    })
    .strict()
    .refine((a) => a.case_id !== undefined || a.idempotency_key !== undefined, {
      message: "give case_id and/or idempotency_key",
    }),
  run(args, ctx: ToolContext): ToolResult {
    const s = ctx.state;
    if (args.case_id !== undefined && !findCase(ctx, args.case_id)) return notFound("case", args.case_id);
    if (s.faults.outage) return toolError("unavailable", "the replacement service is unavailable", true);
    const rows: JsonObject[] = [];
    for (const receipt of s.entities.receipts) {
      if (!receipt.visible) continue;
      const r = s.entities.replacements.find((x) => x.request_id === receipt.request_id)!;
      if (args.case_id !== undefined && r.case_id !== args.case_id) continue;
      if (args.idempotency_key !== undefined && r.idempotency_key !== args.idempotency_key) continue;
      rows.push({
        request_id: r.request_id,
        receipt_id: receipt.receipt_id,
        idempotency_key: r.idempotency_key,
        model: r.model,
        address_id: r.address_id,
      });
    }
    return { ok: true, replacements: rows };
  },
});

const sendMessage = sendMessageTool(CASE);

const escalate = escalateTool(
  CASE,
  "Hand the case to a human, listing the ids (e.g. idempotency keys) of any operations whose outcome " +
    "you could not confirm.",
  { key: "ticket_id", prefix: "TKT", counter: "ticket" },
);

const RESOLUTIONS = ["replacement_created", "denied", "escalated", "no_action"] as const;

const closeCase = closeTool(CASE, {
  name: "close_case",
  description:
    "Close the case with a resolution (replacement_created, denied, escalated, no_action) and, for a " +
    "replacement, its request id or receipt id as reference. Ends the episode.",
  resolutions: RESOLUTIONS,
  reference: "request_id or receipt_id of the replacement.",
});

// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous table of tools, each typed at its definition
export const TOOLS: readonly ToolDef<ToolContext, any>[] = [
  getCase,
  checkWarranty,
  requestApproval,
  getApproval,
  createReplacement,
  findReplacements,
  waitTool,
  sendMessage,
  escalate,
  closeCase,
];

/** Tools whose calls are limited when a task sets a rate limit (the polling tools). */
export const RATE_LIMITED_TOOLS: ReadonlySet<string> = new Set(["get_approval", "find_replacements"]);
