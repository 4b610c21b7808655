/**
 * Which of a server's tools give an agent the filesystem: found from each tool's name, description
 * and JSON schema alone (never called to find out). A tool that reads files (`read_file(path)`,
 * `cat(file)`, `open(filename)`), one that lists directories (`list_dir(path)`, `ls(dir)`), and a
 * shell (`bash(command)`, `run_command(cmd)`, `exec(command)`). A tool whose name says it writes,
 * deletes, moves or runs a file (`write_file`, `delete`, `run_script(path)`) is never one of them:
 * the audit's probes read and list only. A shell is only ever given the read-only commands built here
 * (`ls`, `cat`, `find` with a depth limit), on paths of plain characters.
 */
import type { Action, ToolDescriptor } from "../core/contracts.ts";
import type { JsonObject, JsonValue } from "../core/json.ts";

export type FilesystemToolKind = "read" | "list" | "shell";

/** A tool that reads, lists or runs commands, and the string argument that takes the path or command. */
export interface FilesystemTool {
  kind: FilesystemToolKind;
  tool: ToolDescriptor;
  /** The argument that takes the path (read, list) or the command (shell). */
  param: string;
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** A name's words: `readFile`, `read_file`, `read-file` → read, file. */
export function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Words of a tool that changes or runs something: never probed. */
const WRITES = new Set(
  "write writes save put upload create make mkdir touch edit patch append insert update set replace delete del remove rm rmdir unlink erase move mv rename copy cp chmod chown truncate kill run exec execute eval spawn start launch install download".split(
    " ",
  ),
);
const READS = new Set("read cat open view show get load head tail print display fetch".split(" "));
const LISTS = new Set("list ls dir dirs listdir readdir glob find tree walk scan browse".split(" "));
/** Words that name the filesystem itself: a tool named with one needs no path-named argument. */
const FILES = new Set(
  "file files dir dirs directory directories folder folders path fs filesystem ls cat listdir readdir".split(
    " ",
  ),
);
const SHELLS = new Set("shell bash sh zsh terminal console".split(" "));
/** A string argument that takes a path. */
const PATH_PARAM =
  /^(path|paths|file|files|file_?path|file_?name|filename|dir|dir_?path|dir_?name|directory|folder|folder_?path|location)$/i;
/** A string argument that takes a shell command. */
const COMMAND_PARAM = /^(command|cmd|cmdline|command_?line|shell_?command|bash_?command|script|shell)$/i;
/** A tool's own description of reading or listing (for a path tool whose name says neither). */
const READ_TEXT = /\b(reads?|contents?|cat)\b/i;
const LIST_TEXT = /\b(lists?|entries|directory listing)\b/i;

function stringParams(schema: JsonObject): { name: string; description: string; required: boolean }[] {
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.entries(props)
    .filter(
      ([, p]) => isObject(p) && (p.type === "string" || (Array.isArray(p.type) && p.type.includes("string"))),
    )
    .map(([name, p]) => ({
      name,
      description: isObject(p) && typeof p.description === "string" ? p.description : "",
      required: required.has(name),
    }));
}

/** Whether a tool's name says it changes or runs something (it is never called by a probe). */
export const changesOrRuns = (tool: ToolDescriptor): boolean => wordsOf(tool.name).some((w) => WRITES.has(w));

/** What a tool is, from its name, description and schema (undefined: not a filesystem tool). */
export function classifyTool(tool: ToolDescriptor): FilesystemTool | undefined {
  const words = wordsOf(tool.name);
  const params = stringParams(tool.input_schema);
  const command = params.find((p) => COMMAND_PARAM.test(p.name));
  const named = (set: Set<string>) => words.some((w) => set.has(w));
  // a shell: a command argument, or a shell's name with a string argument
  if (command) return { kind: "shell", tool, param: command.name };
  const only =
    params.length === 1
      ? params[0]
      : params.filter((p) => p.required).length === 1
        ? params.find((p) => p.required)
        : undefined;
  if (named(SHELLS) && only && !named(WRITES)) return { kind: "shell", tool, param: only.name };
  if (named(WRITES)) return undefined;
  // a path argument (by its name or its description), else the one string argument of a tool named for files
  const path =
    params.find((p) => PATH_PARAM.test(p.name)) ??
    params.find((p) => /\b(file|path|directory|folder)\b/i.test(p.description)) ??
    (named(FILES) ? only : undefined);
  if (!path) return undefined;
  if (named(LISTS) || (!named(READS) && LIST_TEXT.test(tool.description)))
    return { kind: "list", tool, param: path.name };
  if (named(READS) || named(FILES) || READ_TEXT.test(tool.description))
    return { kind: "read", tool, param: path.name };
  return undefined;
}

/** The server's filesystem tools: at most one of each kind (the first listed). */
export function findFilesystemTools(tools: ToolDescriptor[]): FilesystemTool[] {
  const found = new Map<FilesystemToolKind, FilesystemTool>();
  for (const t of tools) {
    const c = classifyTool(t);
    if (c && !found.has(c.kind)) found.set(c.kind, c);
  }
  return [...found.values()];
}

/** A value for a required argument the probe does not set: its default, first enum value, or a zero. */
export function fillerOf(schema: JsonValue | undefined): JsonValue | undefined {
  if (!isObject(schema)) return undefined;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "string") return "";
  if (type === "integer" || type === "number") return typeof schema.minimum === "number" ? schema.minimum : 0;
  if (type === "boolean") return false;
  if (type === "array") return [];
  if (type === "object") return {};
  return undefined;
}

/** A tool's arguments: `param` set to `value`, every other required argument filled (undefined when one cannot be). */
export function argsFor(tool: ToolDescriptor, param: string, value: JsonValue): JsonObject | undefined {
  const schema = tool.input_schema;
  const props = isObject(schema.properties) ? schema.properties : {};
  const args: JsonObject = { [param]: value };
  for (const name of Array.isArray(schema.required) ? schema.required.map(String) : []) {
    if (name === param) continue;
    const filler = fillerOf(props[name]);
    if (filler === undefined) return undefined;
    args[name] = filler;
  }
  return args;
}

/** A path a shell command may name: plain characters only, never an option. */
export const SAFE_PATH = /^(?!-)[A-Za-z0-9_./+@:~-]{1,400}$/;
const quoted = (path: string) => `'${path.replace(/'/g, "'\\''")}'`;

/**
 * The action that lists a directory (`list`) or reads a file (`read`) with one of the found tools,
 * or undefined when none can (a shell is given `ls -la -- 'P'` or `cat -- 'P'`, on a safe path only).
 */
export function probeAction(
  tools: FilesystemTool[],
  op: "list" | "read",
  path: string,
  callId: string,
): Action | undefined {
  const own = tools.find((t) => t.kind === op);
  const via = own ?? (SAFE_PATH.test(path) ? tools.find((t) => t.kind === "shell") : undefined);
  if (!via) return undefined;
  const value = via.kind === "shell" ? `${op === "list" ? "ls -la" : "cat"} -- ${quoted(path)}` : path;
  const args = argsFor(via.tool, via.param, value);
  return args ? { tool: via.tool.name, args, callId } : undefined;
}

/** The action that lists files under a directory to a depth with a shell (`find 'P' -maxdepth N -type f`). */
export function findAction(
  tools: FilesystemTool[],
  dir: string,
  depth: number,
  callId: string,
): Action | undefined {
  const shell = tools.find((t) => t.kind === "shell");
  if (!shell || !SAFE_PATH.test(dir)) return undefined;
  const args = argsFor(shell.tool, shell.param, `find ${quoted(dir)} -maxdepth ${depth} -type f`);
  return args ? { tool: shell.tool.name, args, callId } : undefined;
}
