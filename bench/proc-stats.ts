import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: /proc times are in 1/100 s. */
const TICKS = 100;

/** User + system CPU of a process in ms, from the text of its `/proc/<pid>/stat`. */
export function statCpuMs(stat: string): number {
  // The command name (in parentheses) may hold spaces: the fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

/** User + system CPU of a process in ms (Linux /proc). */
export function cpuMs(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** A memory figure of a process from /proc, in MB: `VmRSS` now, `VmHWM` the highest it reached. */
export function statusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** Busy CPU time of the whole machine in ms (/proc/stat: user, nice, system, irq and softirq of all CPUs; not idle, iowait or steal). */
export function machineBusyMs(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const busy = fields.reduce((sum, value, i) => (i === 3 || i === 4 || i >= 7 ? sum : sum + value), 0);
  return (busy * 1000) / TICKS;
}

/** CPU (ms) of every local process whose command name is `name`, by pid. */
function cpuByPid(name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (!stat.includes(`(${name})`)) continue;
      out.set(entry, statCpuMs(stat));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** CPU of every PostgreSQL process by pid (the server's share of a request: backends, WAL writer, ...). */
export function postgresCpu(): Map<string, number> {
  return cpuByPid('postgres');
}

/** User + system CPU (ms) of every local process whose command name is `name` (e.g. redis-server), summed; 0 when none. */
export function commandCpuMs(name: string): number {
  let total = 0;
  for (const ms of cpuByPid(name).values()) total += ms;
  return total;
}

/** PostgreSQL CPU spent between two snapshots (a backend that ended meanwhile is not counted). */
export function postgresCpuMs(before: Map<string, number>, after: Map<string, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
