/**
 * `/openapi.json`: an OpenAPI 3.1 description of the routes this server really serves, with the
 * request and reply shapes (the action, observation and state schemas are `/schema`'s). OpenEnv's
 * validator reads `info.version` and decides the mode from `paths` (`/reset`, `/step`, `/state`
 * present: simulation mode).
 */
import type { EnvSpec } from "../core/contracts.ts";
import type { JsonObject } from "../core/json.ts";
import { MAX_BATCH_STEPS, MAX_GROUP_SIZE } from "./batch-protocol.ts";
import { SERVE_PROTOCOL, schemaDoc } from "./describe.ts";
import type { ServeTarget } from "./target.ts";

const json = (schema: JsonObject) => ({ "application/json": { schema } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The version of the HTTP API this server speaks (OpenEnv's validator maps 1.x to its `openenv-http/1.x` profile). */
export const OPENAPI_VERSION = "1.0.0";

export function openApiDoc(target: ServeTarget, spec: EnvSpec, serverVersion: string): JsonObject {
  const schemas = schemaDoc(spec) as { action: JsonObject; observation: JsonObject; state: JsonObject };
  const error = { description: "a coded error", content: json(ref("Error")) };
  const errors = {
    "400": error,
    "401": error,
    "403": error,
    "404": error,
    "409": error,
    "413": error,
    "422": error,
    "500": error,
    "503": error,
  };
  const envelope = { description: "an observation envelope", content: json(ref("StepEnvelope")) };
  return {
    openapi: "3.1.0",
    info: {
      title: `proving serve: ${target.id}`,
      version: serverVersion,
      description: `${target.world.description} — OpenEnv-compatible (${SERVE_PROTOCOL}); WebSocket sessions at /ws.`,
    },
    paths: {
      "/reset": {
        post: {
          summary: "Start an episode (a fresh environment per episode_id)",
          requestBody: { required: false, content: json(ref("ResetRequest")) },
          responses: { "200": envelope, ...errors },
        },
      },
      "/step": {
        post: {
          summary: "One action of an episode: a tool call, or OpenEnv's list_tools / call_tool",
          requestBody: { required: true, content: json(ref("StepRequest")) },
          responses: { "200": envelope, ...errors },
        },
      },
      "/state": {
        get: {
          summary: "An episode's state (its verdict once it has ended)",
          parameters: [{ name: "episode_id", in: "query", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "the state", content: json(ref("State")) }, ...errors },
        },
      },
      "/close": {
        post: {
          summary: "Free an HTTP episode before the idle reaper would",
          requestBody: {
            required: true,
            content: json({
              type: "object",
              properties: { episode_id: { type: "string" } },
              required: ["episode_id"],
            }),
          },
          responses: { "200": { description: "closed" }, ...errors },
        },
      },
      "/step_batch": {
        post: {
          summary:
            "Steps of many episodes in one request (<= 256): answers in order, each entry's error its own",
          requestBody: { required: true, content: json(ref("StepBatchRequest")) },
          responses: {
            "200": { description: "the entries' results, in order", content: json(ref("StepBatchReply")) },
            ...errors,
          },
        },
      },
      "/fork": {
        post: {
          summary: "n new episodes continuing one from its current state (saved and restored, not replayed)",
          requestBody: {
            required: true,
            content: json({
              type: "object",
              properties: {
                episode_id: { type: "string" },
                n: { type: "integer", minimum: 1, maximum: MAX_GROUP_SIZE },
              },
              required: ["episode_id", "n"],
            }),
          },
          responses: { "200": { description: "the forks", content: json(ref("Episodes")) }, ...errors },
        },
      },
      "/group": {
        get: {
          summary: "How the members of a group reset ended (all_passed / all_failed)",
          parameters: [{ name: "group_id", in: "query", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "the group's results" }, ...errors },
        },
      },
      "/mcp": {
        post: {
          summary:
            "MCP JSON-RPC 2.0: initialize, tools/list, tools/call (params.session_id, or the Mcp-Session-Id header, = an episode_id), openenv/session/create|close",
          requestBody: { required: true, content: json({ type: "object" }) },
          responses: {
            "200": { description: "a JSON-RPC response", content: json({ type: "object" }) },
            "202": { description: "a notification, accepted" },
          },
        },
        delete: {
          summary: "Ends the episode the Mcp-Session-Id header names (MCP's session end)",
          parameters: [{ name: "mcp-session-id", in: "header", required: true, schema: { type: "string" } }],
          responses: {
            "200": { description: "closed" },
            "405": { description: "no Mcp-Session-Id" },
            ...errors,
          },
        },
      },
      "/health": {
        get: { summary: "Liveness", responses: { "200": { description: '{"status": "healthy"}' } } },
      },
      "/metadata": {
        get: {
          summary: "The environment: name, description, tools, families",
          responses: { "200": { description: "metadata" } },
        },
      },
      "/schema": {
        get: {
          summary: "Action, observation and state JSON Schemas",
          responses: { "200": { description: "schemas" } },
        },
      },
      "/openapi.json": {
        get: { summary: "This document", responses: { "200": { description: "OpenAPI 3.1" } } },
      },
    },
    components: {
      schemas: {
        Action: schemas.action,
        Observation: schemas.observation,
        State: schemas.state,
        ResetRequest: {
          type: "object",
          properties: {
            seed: {
              type: ["integer", "null"],
              minimum: -1,
              description:
                "-1 or null: any seed (the server picks one); a seed also decides the family and difficulty not sent",
            },
            episode_id: { type: "string", maxLength: 255 },
            family: { type: "string" },
            difficulty: { type: "integer" },
            admissible: { type: "boolean", description: "answer metadata.admissible_actions" },
            group: {
              type: "integer",
              minimum: 1,
              maximum: MAX_GROUP_SIZE,
              description: "open this many episodes on the identical task: answers {group_id, episodes}",
            },
          },
        },
        StepRequest: {
          type: "object",
          properties: {
            episode_id: { type: "string" },
            action: ref("Action"),
            timeout_s: { type: "number" },
            request_id: { type: "string" },
            admissible: { type: "boolean", description: "answer metadata.admissible_actions" },
          },
          required: ["episode_id", "action"],
        },
        StepBatchRequest: {
          type: "object",
          properties: {
            steps: {
              type: "array",
              maxItems: MAX_BATCH_STEPS,
              items: {
                type: "object",
                properties: {
                  episode_id: { type: "string" },
                  action: ref("Action"),
                  admissible: { type: "boolean" },
                },
                required: ["episode_id", "action"],
              },
            },
          },
          required: ["steps"],
        },
        StepBatchReply: {
          type: "object",
          properties: {
            results: {
              type: "array",
              items: {
                oneOf: [
                  { allOf: [ref("StepEnvelope"), { type: "object", required: ["episode_id"] }] },
                  {
                    type: "object",
                    properties: {
                      episode_id: { type: "string" },
                      error: {
                        type: "object",
                        properties: { code: { type: "string" }, message: { type: "string" } },
                      },
                    },
                    required: ["episode_id", "error"],
                  },
                ],
              },
            },
          },
        },
        Episodes: {
          type: "object",
          properties: {
            group_id: { type: "string" },
            episodes: { type: "array", items: ref("StepEnvelope") },
          },
        },
        StepEnvelope: {
          type: "object",
          properties: {
            observation: ref("Observation"),
            reward: { type: ["number", "null"] },
            done: { type: "boolean" },
            metadata: { type: "object" },
          },
          required: ["observation", "reward", "done"],
        },
        Error: {
          type: "object",
          properties: {
            message: { type: "string" },
            code: { type: "string" },
            errors: {
              type: "array",
              items: {
                type: "object",
                properties: { type: { type: "string" }, loc: { type: "array" }, msg: { type: "string" } },
              },
            },
            detail: { type: "string" },
          },
          required: ["message", "code", "errors"],
        },
      },
    },
  } as unknown as JsonObject;
}
