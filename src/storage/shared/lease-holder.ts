import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";

/** Who holds a turn lock's lease: the process's `host` (see `currentHolder`) and its pid there. */
export interface LeaseHolder {
  host: string;
  pid: number;
}

let current: LeaseHolder | undefined;

/**
 * This process as a lease holder. `host` names the processes whose pids this process can see, so
 * that a pid recorded under the same `host` can be checked here. On Linux that is the kernel's
 * boot id with the pid namespace: containers on one machine may share a host name and see pids
 * of their own. Where neither can be read there, `host` is unique to this process, so no other
 * process ever judges its lease by pid. Elsewhere it is the host name.
 */
export function currentHolder(): LeaseHolder {
  current ??= { host: hostIdentity(), pid: process.pid };
  return current;
}

function hostIdentity(): string {
  if (process.platform !== "linux") return os.hostname();
  try {
    const boot = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const pidNamespace = fs.readlinkSync("/proc/self/ns/pid");
    return `${os.hostname()}/${boot}/${pidNamespace}`;
  } catch {
    return `${os.hostname()}/process-${randomUUID()}`;
  }
}

/**
 * Whether `holder` is provably gone: it was recorded under this process's `host` and no process
 * has its pid now (`kill(pid, 0)` fails with ESRCH), or only its unreaped remains do (a zombie,
 * on Linux). Anything less certain (another host, no holder recorded, a pid in use again, no
 * permission to signal it) is not: that lease runs out on its own.
 */
export function isProvablyGone(holder: { host?: unknown; pid?: unknown } | null | undefined): boolean {
  if (!holder || holder.host !== currentHolder().host) return false;
  const pid = holder.pid;
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  return isZombie(pid);
}

function isZombie(pid: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    // /proc/<pid>/stat: "pid (comm) state …"; comm may hold spaces and parentheses, state follows the last ")".
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "Z";
  } catch {
    return false;
  }
}
