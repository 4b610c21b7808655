/** `proving audit`: is an environment trainable and cheat-resistant? (the audit preset of the checker, src/testing) */

/** The reference agents live with the checker (src/testing); re-exported for the audit's callers. */
export { middlingAgent, nullAgent, randomAgent } from "../testing/index.ts";
export {
  AUDIT_CHECKS,
  type AuditCheckId,
  type AuditFinding,
  type AuditOptions,
  type AuditReport,
  type AuditStatus,
  auditEnvironment,
  formatAudit,
} from "./audit.ts";
export {
  classifyTool,
  type FilesystemTool,
  type FilesystemToolKind,
  findFilesystemTools,
} from "./filesystem-tools.ts";
export { auditForeign, type ForeignAuditOptions } from "./foreign-audit.ts";
export { probeRewardReachability, type RewardReachabilityOptions } from "./reward-reachability.ts";
export {
  auditCustomerSimulator,
  formatSimulatorAudit,
  type PersonaAudit,
  type Rate,
  type SimulatorAuditOptions,
  type SimulatorAuditReport,
} from "./simulator-audit.ts";
