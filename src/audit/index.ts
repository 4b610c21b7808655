/** `proving audit`: is an environment trainable and cheat-resistant? (reuses the conformance checker) */
export {
  AUDIT_CHECKS,
  type AuditCheckId,
  type AuditFinding,
  type AuditOptions,
  type AuditReport,
  type AuditStatus,
  auditEnvironment,
  formatAudit,
  middlingAgent,
  nullAgent,
  randomAgent,
} from "./audit.ts";
export {
  auditCustomerSimulator,
  formatSimulatorAudit,
  type PersonaAudit,
  type Rate,
  type SimulatorAuditOptions,
  type SimulatorAuditReport,
} from "./simulator-audit.ts";
