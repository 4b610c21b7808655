import type { JsonValue } from "../../core/json.ts";
import type { AdmissibleDeclaration, SeenValues } from "../shared/index.ts";
import { DEVICE_SUPPORT_ADMISSIBLE } from "./admissible.ts";
import { addressIn, MESSAGES, modelIn } from "./conversation-policies.ts";

const strings = (values: readonly (string | number)[], n: number) => values.slice(0, n).map(String);

/**
 * The messages to the customer a device-support@2 agent could send now, from what it saw: a
 * greeting asking what they want (by the customer's name and the case), a read-back of a model and
 * an address line seen, the refusal of a second replacement, a close without one, and the notice of
 * a replacement request seen with its address line.
 */
function messages(seen: SeenValues): JsonValue[] {
  const cases = strings(seen.values("case_id"), 1);
  const names = strings(seen.values("name"), 1);
  const models = strings(seen.values("model"), 2);
  const lines = strings(seen.values("line"), 2);
  const requests = strings(seen.values("request_id"), 1);
  const out: string[] = [];
  for (const c of cases) for (const n of names) out.push(MESSAGES.greet(n, c));
  for (const m of models) for (const l of lines) out.push(MESSAGES.confirm(m, l));
  out.push(MESSAGES.refuseSecond, MESSAGES.closedWithout);
  for (const r of requests) for (const l of lines) out.push(MESSAGES.created(r, l));
  return out;
}

/**
 * device-support@2's admissible actions: @1's, plus the model and address line a customer's message
 * mentions (extracted from the texts seen), the messages `messages` builds, and `add_address` with
 * an address line seen.
 */
export const DEVICE_SUPPORT_V2_ADMISSIBLE: AdmissibleDeclaration = {
  ...DEVICE_SUPPORT_ADMISSIBLE,
  extractors: {
    model: (text) => {
      const m = modelIn(text);
      return m === undefined ? [] : [m];
    },
    line: (text) => {
      const a = addressIn(text);
      return a === undefined ? [] : [a];
    },
  },
  args: {
    ...DEVICE_SUPPORT_ADMISSIBLE.args,
    "send_message.text": { build: messages },
    line: { from: ["line"], limit: 3 },
  },
};
