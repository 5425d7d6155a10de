import { describe, expect, it } from 'vitest';
import { BenchUsageError, parseBenchArgs, SCENARIOS } from './parseBenchArgs.js';

describe('parseBenchArgs', () => {
  it('defaults to all scenarios, 32 virtual users, 20 s measured after 30 s warm-up, with the baseline', () => {
    const a = parseBenchArgs([]);
    expect(a).toMatchObject({ scenarios: [...SCENARIOS], vus: 32, durationSeconds: 20, warmupSeconds: 30, scale: null, webhooks: false, baseline: true, jsonFile: null, strict: false, url: null });
  });

  it('runs the named scenarios in the canonical order, once each', () => {
    expect(parseBenchArgs(['--scenario', 'challenge,login,login']).scenarios).toEqual(['login', 'challenge']);
  });

  it('--scale alone runs only the scale comparison; with --scenario both', () => {
    expect(parseBenchArgs(['--scale', '20000'])).toMatchObject({ scale: 20000, scenarios: [] });
    expect(parseBenchArgs(['--scale', '20000', '--scenario', 'login'])).toMatchObject({ scale: 20000, scenarios: ['login'] });
    expect(parseBenchArgs(['--webhooks'])).toMatchObject({ webhooks: true, scenarios: [] });
    expect(parseBenchArgs(['--webhooks', '--scenario', 'login'])).toMatchObject({ webhooks: true, scenarios: ['login'] });
  });

  it('reads the knobs and flags', () => {
    const a = parseBenchArgs(['--vus', '8', '--duration', '2.5', '--warmup', '0', '--no-baseline', '--json', 'out.json', '--strict', '--stack-env', 'A=1', '--stack-env', 'B=x=y']);
    expect(a).toMatchObject({ vus: 8, durationSeconds: 2.5, warmupSeconds: 0, baseline: false, jsonFile: 'out.json', strict: true, stackEnv: { A: '1', B: 'x=y' } });
  });

  it('takes --url with --project and optional metrics endpoints', () => {
    const a = parseBenchArgs(['--url', 'http://127.0.0.1:8081', '--project', '.local/demo-project.json', '--metrics', 'ceremony=http://127.0.0.1:7101,gateway=http://127.0.0.1:8080']);
    expect(a.url).toBe('http://127.0.0.1:8081');
    expect(a.metricsUrls).toEqual({ ceremony: 'http://127.0.0.1:7101', gateway: 'http://127.0.0.1:8080' });
  });

  it.each([
    [['--scenario', 'logout']],
    [['--scenario', '']],
    [['--vus', '0']],
    [['--vus', '1.5']],
    [['--duration', '0']],
    [['--warmup', '-1']],
    [['--scale', '1000']],
    [['--url', 'http://x']],
    [['--metrics', 'a=http://x']],
    [['--url', 'http://x', '--project', 'p.json', '--stack-env', 'A=1']],
    [['--stack-env', 'novalue']],
    [['--unknown']],
  ])('refuses %j', (argv) => {
    expect(() => parseBenchArgs(argv)).toThrow(BenchUsageError);
  });
});
