import { z } from "zod";
import type { ToolResult } from "../../core/contracts.ts";
import { defineTool, toolError } from "../../core/tool.ts";
import { notFound } from "./entity-id.ts";

/**
 * What a world's customer-facing tools (`send_message`, `escalate`, closing) are about: a support
 * case, an order ticket. The tools are the same in every world but for the subject's names.
 */
export interface Subject<K extends string, Ctx> {
  /** Its noun in descriptions and errors, e.g. `case`. */
  noun: string;
  /** The argument (and the field of the records the tools write) that names it, e.g. `case_id`. */
  key: K;
  /** The schema of that argument. */
  id: z.ZodString;
  find(ctx: Ctx, id: string): { status: "open" | "closed" } | undefined;
}

/** The argument naming the subject, first in every subject tool's input. */
const idShape = (subject: Subject<string, never>): Record<string, z.ZodString> => ({
  [subject.key]: subject.id,
});

/** The subject's id among a subject tool's validated arguments. */
const idOf = (subject: Subject<string, never>, args: object): string =>
  (args as Record<string, string>)[subject.key];

/** A message to the customer, as `send_message` records it. */
type MessageRow<K extends string> = { message_id: string; text: string; t: number } & Record<K, string>;

/** A hand-over to a human, as `escalate` records it (its own id under `R`). */
type EscalationRow<K extends string, R extends string> = Record<R, string> &
  Record<K, string> & { reason: string; operation_ids: string[]; t: number };

/** How the subject was closed, as the closing tool records it. */
type ClosureRow<K extends string> = Record<K, string> & {
  resolution: string;
  reference?: string;
  step: number;
  t: number;
};

/** What the subject tools need of a world's tool context. */
interface SubjectContext<K extends string, R extends string = never> {
  readonly state: {
    readonly now: number;
    ended: boolean;
    readonly entities: {
      messages: MessageRow<K>[];
      escalations: EscalationRow<K, R>[];
      closure?: ClosureRow<K>;
    };
  };
  /** Index of the current tool call in the world's trace. */
  readonly step: number;
  newId(prefix: string, counter: string): string;
}

/**
 * `send_message`: a message to the customer of the subject, recorded as
 * `{message_id, <key>, text, t}` (ids `MSG-…` from the `message` counter).
 */
export function sendMessageTool<K extends string, Ctx extends SubjectContext<K>>(subject: Subject<K, Ctx>) {
  return defineTool({
    name: "send_message",
    description: `Send a message to the customer of a ${subject.noun}.`,
    input: z.object({ ...idShape(subject), text: z.string().min(1).max(4000) }).strict(),
    run(args, ctx: Ctx): ToolResult {
      const id = idOf(subject, args);
      if (!subject.find(ctx, id)) return notFound(subject.noun, id);
      const message_id = ctx.newId("MSG", "message");
      ctx.state.entities.messages.push({
        message_id,
        ...({ [subject.key]: id } as Record<K, string>),
        text: args.text,
        t: ctx.state.now,
      });
      return { ok: true, message_id };
    },
  });
}

/**
 * `escalate`: hands the subject to a human with the ids of unconfirmed operations, recorded as
 * `{<record.key>, <key>, reason, operation_ids, t}` (ids `<record.prefix>-…` from `record.counter`).
 */
export function escalateTool<K extends string, R extends string, Ctx extends SubjectContext<K, R>>(
  subject: Subject<K, Ctx>,
  description: string,
  record: { key: R; prefix: string; counter: string },
) {
  return defineTool({
    name: "escalate",
    description,
    input: z
      .object({
        ...idShape(subject),
        reason: z.string().min(1),
        operation_ids: z.array(z.string()).describe("Ids of unconfirmed operations (may be empty)."),
      })
      .strict(),
    run(args, ctx: Ctx): ToolResult {
      const id = idOf(subject, args);
      if (!subject.find(ctx, id)) return notFound(subject.noun, id);
      const escalationId = ctx.newId(record.prefix, record.counter);
      ctx.state.entities.escalations.push({
        ...({ [record.key]: escalationId } as Record<R, string>),
        ...({ [subject.key]: id } as Record<K, string>),
        reason: args.reason,
        operation_ids: [...args.operation_ids],
        t: ctx.state.now,
      });
      return { ok: true, [record.key]: escalationId };
    },
  });
}

/**
 * The terminal tool (`close_case`, `close_ticket`): closes the open subject with a resolution and an
 * optional reference, recorded as the closure `{<key>, resolution, reference?, step, t}`; ends the episode.
 */
export function closeTool<K extends string, Ctx extends SubjectContext<K>>(
  subject: Subject<K, Ctx>,
  tool: {
    name: string;
    description: string;
    resolutions: readonly [string, ...string[]];
    /** The description of the `reference` argument. */
    reference: string;
  },
) {
  return defineTool({
    name: tool.name,
    description: tool.description,
    input: z
      .object({
        ...idShape(subject),
        resolution: z.enum(tool.resolutions),
        reference: z.string().min(1).optional().describe(tool.reference),
      })
      .strict(),
    run(args, ctx: Ctx): ToolResult {
      const id = idOf(subject, args);
      const s = subject.find(ctx, id);
      if (!s) return notFound(subject.noun, id);
      if (s.status === "closed")
        return toolError("invalid_argument", `${subject.noun} ${id} is already closed`);
      s.status = "closed";
      ctx.state.entities.closure = {
        ...({ [subject.key]: id } as Record<K, string>),
        resolution: args.resolution,
        ...(args.reference !== undefined ? { reference: args.reference } : {}),
        step: ctx.step,
        t: ctx.state.now,
      };
      ctx.state.ended = true;
      return { ok: true, [subject.key]: id, status: "closed", resolution: args.resolution };
    },
  });
}
