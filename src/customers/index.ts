/** Customer simulators that do IO (injected into worlds that play customers): the LLM-driven one. */
export { customerPrompt } from "./customer-prompt.ts";
export { type LlmCustomerOptions, llmCustomer } from "./llm-customer.ts";
