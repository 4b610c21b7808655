import type { AdmissibleDeclaration } from "../shared/index.ts";

/**
 * device-support@1's admissible actions: the defaults fill the ids (case, device, address), the
 * models and the keys from what was seen; a close's reference is a request or receipt id seen; the
 * reasons and a message to the customer are free text (one text each).
 */
export const DEVICE_SUPPORT_ADMISSIBLE: AdmissibleDeclaration = {
  args: {
    "request_approval.reason": { text: "The customer's device needs a replacement." },
    "escalate.reason": { text: "Handing the case to a human: see the operation ids." },
    "send_message.text": { text: "We are working on your case and will update you shortly." },
    model: { from: ["model"], limit: 3 },
    address_id: { from: ["address_id"], limit: 4 },
    reference: { from: ["request_id", "receipt_id"], limit: 3 },
  },
};
