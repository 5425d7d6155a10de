/** The shapes of what one bench run measured (printed as tables and written by --json). */
import type { LatencyStats } from './computeLatencyStats.js';
import type { ScenarioName } from './parseBenchArgs.js';

/** One closed-loop run against one target (the stack or the baseline). */
export interface LoopResult {
  /** Successful ceremonies that finished inside the measured window. */
  ceremonies: number;
  /** Failed ceremonies that finished inside the measured window. */
  errors: number;
  /** The first failure of the whole run (warm-up included), in full. */
  firstError: string | null;
  /** Length of the measured window. */
  seconds: number;
  perSecond: number;
  /** Milliseconds, of the successful ceremonies in the window. */
  latency: LatencyStats;
  /** CPU the bench process itself spent in the window (driver, authenticator, supervisor's log piping). */
  driverCpuSeconds: number;
  /** VmHWM of the bench process over the scenario. */
  driverPeakRssMb: number;
}

export interface ProcessUsage {
  name: string;
  pid: number;
  /** utime + stime grown in the measured window. */
  cpuSeconds: number;
  /** VmHWM at the end of the scenario (reset at its start where the kernel allows, see readProcessStats). */
  peakRssMb: number;
  /**
   * Per finished ceremony in the window (successes and errors), from the process's /metrics; null
   * where it has no such metric or it could not be read.
   */
  storeOpsPerCeremony: number | null;
  rpcsPerCeremony: number | null;
  storeOpsBy: Record<string, number>;
  rpcsBy: Record<string, number>;
}

export interface StackRun extends LoopResult {
  processes: ProcessUsage[];
  /** Sum over the processes; null when no /metrics could be read. */
  storeOpsPerCeremony: number | null;
  rpcsPerCeremony: number | null;
  /** Processes whose counters went backwards (a restart during the window): their counts are left out. */
  metricsResets: string[];
  /** Untimed helper requests (user creations of the challenge scenario) inside the window, whose cost the per-ceremony figures include. */
  helperCallsInWindow: number;
}

export interface BaselineRun extends LoopResult {
  cpuSeconds: number;
  peakRssMb: number;
}

export interface ScenarioResult {
  scenario: ScenarioName;
  vus: number;
  warmupSeconds: number;
  stack: StackRun;
  baseline: BaselineRun | null;
}

export interface ScaleResult {
  passkeys: number;
  baseP50Ms: number;
  scaledP50Ms: number;
  /** scaledP50Ms / baseP50Ms. */
  ratio: number;
  base: StackRun;
  scaled: StackRun;
  seedSeconds: number;
  /** RSS of the embedded store after seeding (null with MONGODB_URI, whose server is not ours to read). */
  storeRssMbAfterSeed: number | null;
  /** Store RSS growth from 1,000 to N stored passkeys, per added passkey (with its user, handle, client env and events). */
  storeBytesPerPasskey: number | null;
  /** The login with a seeded user that proved the seeded documents right. */
  seedCheck: string;
}
