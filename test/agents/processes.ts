/** Process checks of the cmd agent tests, read from /proc (Linux). */
import fs from "node:fs";

/** Whether `pid` is a live process (not gone, not a zombie). */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

/** Live processes of this machine whose command line is exactly `sleep <seconds>`. */
export function sleepers(seconds: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
      if (argv.length === 2 && argv[0]!.endsWith("sleep") && argv[1] === seconds && alive(Number(entry)))
        pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}
