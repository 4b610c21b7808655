import type { Task } from "../../core/contracts.ts";
import type { JsonObject } from "../../core/json.ts";
import type { Handoff, HandoffResult } from "../../harness/link-layer.ts";
import { DEVICE_SUPPORT_ID } from "../device-support/index.ts";
import { ORDER_OPS_ID } from "../order-ops/index.ts";

export const REPLACEMENT_ORDER_HANDOFF_ID = "handoff.replacement-order@1";

interface DsView {
  customers: { customer_id: string; name: string; addresses: { address_id: string; line: string }[] }[];
  cases: { case_id: string; customer_id: string }[];
  replacements: {
    request_id: string;
    case_id: string;
    model: string;
    address_id: string;
    committed_at: number;
  }[];
}

/**
 * `handoff.replacement-order@1` (device-support@1 → order-ops@1): the replacement committed for the
 * task's case becomes an order in order-ops — its request id as the order's `external_ref`, the
 * customer's name and addresses, the replacement's model and shipping address. The agent is told the
 * request id (and the case), nothing else: it finds the order by its external_ref.
 */
export const replacementOrderHandoff: Handoff = {
  id: REPLACEMENT_ORDER_HANDOFF_ID,
  description:
    "the case's replacement request becomes the order-ops order it ships as (external_ref = request id)",
  from: DEVICE_SUPPORT_ID,
  to: ORDER_OPS_ID,
  take(a: { task: Task; view: Readonly<JsonObject> }): HandoffResult {
    const view = a.view as unknown as DsView;
    const caseId = String(a.task.params.case_id);
    const replacement = view.replacements
      .filter((r) => r.case_id === caseId)
      .sort((x, y) => x.committed_at - y.committed_at)[0];
    if (!replacement) return { ok: false, reason: `no replacement was committed for case ${caseId}` };
    const c = view.cases.find((x) => x.case_id === caseId);
    const customer = view.customers.find((x) => x.customer_id === c?.customer_id);
    if (!customer) return { ok: false, reason: `case ${caseId} has no customer` };
    return {
      ok: true,
      params: {
        link: {
          external_ref: replacement.request_id,
          customer_name: customer.name,
          addresses: customer.addresses.map((x) => ({ address_id: x.address_id, line: x.line })),
          address_id: replacement.address_id,
          item: replacement.model,
        },
      },
      context: { case_id: caseId, request_id: replacement.request_id },
    };
  },
};
