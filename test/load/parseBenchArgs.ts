/** The command line of `npm run bench` (see docs/benchmarks.md); pure, so it is unit-tested. */
import { parseArgs } from 'node:util';

export const SCENARIOS = ['login', 'mediation', 'register', 'challenge', 'connect-login'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface BenchArgs {
  scenarios: ScenarioName[];
  vus: number;
  durationSeconds: number;
  warmupSeconds: number;
  /** Stored passkeys for the scale comparison (login p50 at 1,000 and at N); null: no comparison. */
  scale: number | null;
  /** Login and registration without, with and again without a webhook endpoint subscribed to every type (see runWebhookComparison). */
  webhooks: boolean;
  baseline: boolean;
  jsonFile: string | null;
  strict: boolean;
  /** An already running gateway's backend API (its project comes from `projectFile`). */
  url: string | null;
  projectFile: string | null;
  /** Metrics endpoints of an already running stack, by process name. */
  metricsUrls: Record<string, string>;
  /** Environment overrides for the started stack's processes (a deviation from `npm start`, printed as such). */
  stackEnv: Record<string, string>;
}

export const USAGE = `usage: npm run bench -- [--scenario login,mediation,register,challenge,connect-login] [--vus 32] [--duration 20] [--warmup 30]
                      [--scale N] [--webhooks] [--no-baseline] [--json FILE] [--strict]
                      [--url BACKEND_URL --project PROJECT_JSON [--metrics name=URL,...]] [--stack-env KEY=VALUE ...]`;

export class BenchUsageError extends Error {}

/** The smallest scale comparison: the first measurement is at 1,000 stored passkeys. */
export const SCALE_BASE = 1000;

export function parseBenchArgs(argv: string[]): BenchArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        scenario: { type: 'string' },
        vus: { type: 'string', default: '32' },
        duration: { type: 'string', default: '20' },
        warmup: { type: 'string', default: '30' },
        scale: { type: 'string' },
        webhooks: { type: 'boolean', default: false },
        'no-baseline': { type: 'boolean', default: false },
        json: { type: 'string' },
        strict: { type: 'boolean', default: false },
        url: { type: 'string' },
        project: { type: 'string' },
        metrics: { type: 'string' },
        'stack-env': { type: 'string', multiple: true },
      },
    }));
  } catch (err) {
    throw new BenchUsageError((err as Error).message);
  }
  const scale = values.scale === undefined ? null : integer('--scale', values.scale, SCALE_BASE + 1);
  // --scale or --webhooks alone is that comparison only; the scenarios run with it when named explicitly.
  const scenarios = values.scenario === undefined ? (scale === null && !values.webhooks ? [...SCENARIOS] : []) : scenarioList(values.scenario);
  const url = values.url ?? null;
  const projectFile = values.project ?? null;
  if ((url === null) !== (projectFile === null)) throw new BenchUsageError('--url and --project go together');
  if (url !== null && !URL.canParse(url)) throw new BenchUsageError(`--url is not a URL: ${url}`);
  if (values.metrics !== undefined && url === null) throw new BenchUsageError('--metrics is for --url (a started stack is measured anyway)');
  if (values['stack-env'] !== undefined && url !== null) throw new BenchUsageError('--stack-env applies to the stack the bench starts, not to --url');
  return {
    scenarios,
    vus: integer('--vus', values.vus, 1),
    durationSeconds: seconds('--duration', values.duration, false),
    warmupSeconds: seconds('--warmup', values.warmup, true),
    scale,
    webhooks: values.webhooks,
    baseline: !values['no-baseline'],
    jsonFile: values.json ?? null,
    strict: values.strict,
    url,
    projectFile,
    metricsUrls: pairs('--metrics', values.metrics === undefined ? [] : values.metrics.split(','), (v) => URL.canParse(v)),
    stackEnv: pairs('--stack-env', values['stack-env'] ?? [], () => true),
  };
}

function scenarioList(text: string): ScenarioName[] {
  const names = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw new BenchUsageError('--scenario needs at least one of ' + SCENARIOS.join(', '));
  for (const n of names) {
    if (!(SCENARIOS as readonly string[]).includes(n)) throw new BenchUsageError(`unknown scenario "${n}" (known: ${SCENARIOS.join(', ')})`);
  }
  // Run order is the canonical one, whatever order was typed; duplicates collapse.
  return SCENARIOS.filter((s) => names.includes(s));
}

function integer(flag: string, text: string, min: number): number {
  const n = Number(text);
  if (!/^[0-9]+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min) throw new BenchUsageError(`${flag} must be an integer >= ${min}, got "${text}"`);
  return n;
}

function seconds(flag: string, text: string, zeroAllowed: boolean): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || (!zeroAllowed && n === 0)) throw new BenchUsageError(`${flag} must be a number of seconds ${zeroAllowed ? '>= 0' : '> 0'}, got "${text}"`);
  return n;
}

function pairs(flag: string, items: string[], valid: (value: string) => boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf('=');
    const key = eq > 0 ? item.slice(0, eq) : '';
    const value = eq > 0 ? item.slice(eq + 1) : '';
    if (!key || !valid(value)) throw new BenchUsageError(`${flag} expects KEY=VALUE, got "${item}"`);
    out[key] = value;
  }
  return out;
}
