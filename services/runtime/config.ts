/**
 * Configuration comes only from environment variables, read once in main.ts and validated
 * together, so a misconfigured process stops at start-up with every problem listed.
 */
export class ConfigError extends Error {}

export class EnvReader {
  private readonly problems: string[] = [];
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  string(name: string, fallback?: string): string {
    const v = this.env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    this.problems.push(`${name} is required`);
    return '';
  }

  optional(name: string): string | undefined {
    const v = this.env[name];
    return v === undefined || v === '' ? undefined : v;
  }

  port(name: string, fallback: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 65535) this.problems.push(`${name} must be a port number (0-65535), got "${raw}"`);
    return n;
  }

  int(name: string, fallback: number, min: number, max: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) this.problems.push(`${name} must be an integer in ${min}..${max}, got "${raw}"`);
    return n;
  }

  url(name: string, fallback?: string): string {
    const v = this.string(name, fallback);
    if (v && !URL.canParse(v)) this.problems.push(`${name} must be a URL, got "${v}"`);
    return v.replace(/\/+$/, '');
  }

  /** Throws one error listing every problem found. */
  done(): void {
    if (this.problems.length) throw new ConfigError(`invalid configuration:\n  - ${this.problems.join('\n  - ')}`);
  }
}
