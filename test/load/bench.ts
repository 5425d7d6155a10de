/**
 * `npm run bench`: closed-loop benchmark of the backend API through the gateway, with the project's
 * software authenticator, against the baseline (bare @simplewebauthn/server in memory). See
 * docs/benchmarks.md for the flags and what every column means. Exits 0 whenever it could run
 * (missed targets are FAIL lines), 1 with --strict and a missed target, 2 on a bad command line.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import type { ProjectCredentials } from '../../services/connect/src/cli/projectAdmin.js';
import { basic } from '../kit/startStack.js';
import type { ScaleResult, ScenarioResult } from './benchResults.js';
import { checkTargets, TARGETS } from './checkTargets.js';
import { createJsonClient } from './createJsonClient.js';
import { defineScenario } from './defineScenarios.js';
import { formatScale, formatScenario, formatTargets } from './formatReport.js';
import { formatHostSpeed, measureHostSpeed } from './measureHostSpeed.js';
import { measureBaselineRun, measureStackRun, type Probe } from './measureScenario.js';
import { BenchUsageError, parseBenchArgs, USAGE, type BenchArgs } from './parseBenchArgs.js';
import type { BenchTarget } from './registerPasskeyUser.js';
import { runScaleComparison } from './runScaleComparison.js';
import { formatWebhooks, runWebhookComparison, type WebhookResult } from './runWebhookComparison.js';
import { startBaseline, type Baseline } from './startBaseline.js';
import { startBenchStack, type BenchStack } from './startBenchStack.js';

let args: BenchArgs;
try {
  args = parseBenchArgs(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof BenchUsageError)) throw err;
  process.stderr.write(`bench: ${err.message}\n${USAGE}\n`);
  process.exit(2);
}

const say = (text = '') => process.stdout.write(`${text}\n`);
let stack: BenchStack | null = null;
let baseline: Baseline | null = null;
const cleanup = async () => {
  await baseline?.stop();
  await stack?.stop();
};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`\n${signal}: stopping…`);
    void cleanup().finally(() => process.exit(130));
  });
}

try {
  const loop = { warmupSeconds: args.warmupSeconds, durationSeconds: args.durationSeconds };
  // A per-run tag keeps user names and client environments apart from earlier runs on a shared stack.
  const tag = randomBytes(3).toString('hex');
  let project: ProjectCredentials;
  let backendUrl: string;
  const probe = (): Probe => (stack ? { pids: stack.pids(), metricsUrls: stack.metricsUrls } : { pids: {}, metricsUrls: args.metricsUrls });
  // Taken while nothing of ours runs (before the stack, then between scenarios): see measureHostSpeed.
  const hostChecks: { when: string; ms: number | null }[] = [];
  const checkHost = async (when: string) => {
    const ms = await measureHostSpeed();
    hostChecks.push({ when, ms: Number.isFinite(ms) ? Math.round(ms) : null });
    say(formatHostSpeed(when, ms));
  };

  say(`passkeyauth bench  ${new Date().toISOString()}`);
  say(`machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, node ${process.version}`);
  say(`load: ${args.vus} virtual users, ${args.warmupSeconds} s warm-up + ${args.durationSeconds} s measured per run; scenarios: ${args.scenarios.join(', ') || '(none)'}${args.scale ? `; scale ${args.scale}` : ''}`);
  await checkHost(args.url ? 'before the load starts' : 'before the stack starts');
  if (args.url) {
    project = JSON.parse(readFileSync(args.projectFile!, 'utf8')) as ProjectCredentials;
    backendUrl = args.url;
    say(`target: ${backendUrl} (started elsewhere; project ${project.projectID}); process CPU and memory not measured${Object.keys(args.metricsUrls).length ? '' : ', no /metrics given'}`);
  } else {
    say(`starting the stack (${process.env.MONGODB_URI ? 'MONGODB_URI' : 'embedded store'}, npm start defaults${Object.keys(args.stackEnv).length ? `, DEVIATING with ${Object.entries(args.stackEnv).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''})…`);
    stack = await startBenchStack(args.stackEnv);
    project = await stack.createProject(`bench-${tag}`);
    backendUrl = stack.backendUrl;
    say(`stack up: backend ${backendUrl}, store ${stack.embeddedStore ? 'embedded (own process)' : 'MONGODB_URI'}, pids ${JSON.stringify(stack.pids())}`);
  }
  const authorization = basic(project);
  const origin = project.origins[0];
  // One keep-alive socket per virtual user, plus a few for the untimed helper requests.
  // The connect-login scenario's page calls go to the frontend API, without Authorization.
  const frontendOf = (url: string) => ({ client: createJsonClient(url, '', args.vus + 4), projectId: project.projectID });
  const target: BenchTarget = { client: createJsonClient(backendUrl, authorization, args.vus + 4), origin, frontend: frontendOf(project.frontendApiUrl) };
  if (args.baseline && args.scenarios.length) baseline = await startBaseline(authorization, origin);
  const baselineTarget: BenchTarget | null = baseline ? { client: createJsonClient(baseline.url, authorization, args.vus + 4), origin, frontend: frontendOf(baseline.url) } : null;

  const results: ScenarioResult[] = [];
  for (const name of args.scenarios) {
    say();
    const runSeconds = args.warmupSeconds + args.durationSeconds;
    const stackRun = await measureStackRun(defineScenario(name, { vus: args.vus, runSeconds, tag: `${tag}s` }), target, probe(), loop);
    const baselineRun =
      baseline && baselineTarget ? await measureBaselineRun(defineScenario(name, { vus: args.vus, runSeconds, tag: `${tag}b` }), baselineTarget, baseline.pid, loop) : null;
    const result: ScenarioResult = { scenario: name, vus: args.vus, warmupSeconds: args.warmupSeconds, stack: stackRun, baseline: baselineRun };
    results.push(result);
    say(formatScenario(result));
    await checkHost(`after ${name}`);
  }

  let scale: ScaleResult | null = null;
  if (args.scale) {
    say();
    scale = await runScaleComparison({ passkeys: args.scale, vus: args.vus, loop, stack, backendUrl, project: stack ? null : project, probe, tag, say });
    say(formatScale(scale));
    await checkHost('after the scale comparison');
  }

  let webhooks: WebhookResult | null = null;
  if (args.webhooks) {
    say();
    webhooks = await runWebhookComparison({ vus: args.vus, loop, target, probe, tag, say });
    say(formatWebhooks(webhooks));
    await checkHost('after the webhook comparison');
  }

  const restarts = stack?.restarts() ?? [];
  if (restarts.length) say(`\nWARNING: processes restarted during the run:\n${restarts.join('\n')}`);
  const targets = checkTargets(results, scale);
  say();
  say(`Targets (stated for: 2 cores, npm start defaults, 32 virtual users; this run: ${cpus().length} CPUs, ${stack ? (Object.keys(args.stackEnv).length ? 'npm start defaults with --stack-env overrides' : 'npm start defaults') : 'a stack started elsewhere'}, ${args.vus} virtual users)`);
  say(formatTargets(targets));
  if (args.jsonFile) {
    const doc = { date: new Date().toISOString(), machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, totalMemGiB: totalmem() / 2 ** 30, node: process.version }, args, targets: TARGETS, hostChecks, results, scale, webhooks, checklist: targets, restarts };
    writeFileSync(args.jsonFile, `${JSON.stringify(doc, null, 2)}\n`);
    say(`\nresults written to ${args.jsonFile}`);
  }
  target.client.close();
  target.frontend?.client.close();
  baselineTarget?.client.close();
  baselineTarget?.frontend?.client.close();
  await cleanup();
  process.exit(args.strict && targets.some((t) => t.verdict === 'FAIL') ? 1 : 0);
} catch (err) {
  process.stderr.write(`bench could not run: ${(err as Error).stack ?? err}\n`);
  if (stack) process.stderr.write(`last output of the stack:\n${stack.logTail().slice(-30).join('\n')}\n`);
  await cleanup().catch(() => undefined);
  process.exit(3);
}
