/**
 * CPU time and peak memory of a process from Linux /proc: utime + stime of /proc/<pid>/stat and
 * VmHWM / VmRSS of /proc/<pid>/status. Read from outside, so the measured process needs no code
 * for it, and the embedded store is measured like the services.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

let ticksPerSecond: number | null = null;

/** USER_HZ, the unit of utime and stime (100 on practically every Linux, but asked rather than assumed). */
function clockTicks(): number {
  if (ticksPerSecond === null) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** CPU seconds (user + system) the process has used so far; null once it is gone. */
export function readCpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses; fields after the last ")" are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state), so utime (14) and stime (15) are at 11 and 12.
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return null;
  }
}

/** Bytes the process has caused to be written to storage (/proc/PID/io write_bytes), or null if unreadable. */
export function readWrittenBytes(pid: number): number | null {
  try {
    const match = /^write_bytes:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Peak (VmHWM) and current (VmRSS) resident memory in MB; null once the process is gone. */
export function readMemoryMb(pid: number): { peak: number; current: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { peak: kb('VmHWM') / 1024, current: kb('VmRSS') / 1024 };
  } catch {
    return null;
  }
}

/**
 * Resets the process's peak RSS to its current RSS (writing 5 to clear_refs, Linux >= 4.0), so
 * the next VmHWM read is the peak of one scenario. Returns false where that is not allowed; the
 * peak is then the process's lifetime peak, which the report says.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
