// The processes of this machine, from /proc: for tests that check what a run leaves behind.
import fs from "node:fs";

export interface Proc {
  pid: number;
  ppid: number;
  state: string;
  comm: string;
  cmdline: string;
}

/** Every live process, from /proc. */
export function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const [state, ppid] = stat.slice(close + 2).split(" ");
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      out.push({ pid: Number(name), ppid: Number(ppid), state, comm: stat.slice(stat.indexOf("(") + 1, close), cmdline });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The processes below `pid` (not `pid` itself). */
export function descendants(pid: number): Proc[] {
  const all = processes();
  const found: Proc[] = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const p of all) {
      if (p.ppid === parent && p.state !== "Z") {
        found.push(p);
        queue.push(p.pid);
      }
    }
  }
  return found;
}

/** Whether `p` is still running (same PID and command line; a zombie counts as gone). */
export function running(p: Proc): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${p.pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    const cmdline = fs.readFileSync(`/proc/${p.pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
    return state !== "Z" && cmdline === p.cmdline;
  } catch {
    return false;
  }
}
