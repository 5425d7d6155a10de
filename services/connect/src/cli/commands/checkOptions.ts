/** The option checks several commands share; each throws UsageError with the message the CLI prints. */
import { CLONE_DETECTION_POLICIES } from '../../projects/domain/cloneDetection.js';
import { SELF_SERVICE_SETTINGS } from '../../projects/domain/selfServiceFlows.js';
import { UsageError } from './projectCommand.js';

type OptionValues = Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;

/** A string option that must be present and not empty. */
export function requiredOption(values: OptionValues, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

/** An optional whole number of seconds within [min, max]. */
export function secondsOption(values: OptionValues, name: string, min: number, max: number): number | undefined {
  return wholeNumberOption(values, name, min, max, 'seconds');
}

/** An optional whole number of days within [min, max]. */
export function daysOption(values: OptionValues, name: string, min: number, max: number): number | undefined {
  return wholeNumberOption(values, name, min, max, 'days');
}

function wholeNumberOption(values: OptionValues, name: string, min: number, max: number, unit: string): number | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^[0-9]{1,9}$/.test(v) ? Number(v) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`--${name} must be a whole number of ${unit} from ${min} to ${max}`);
  return n;
}

/** The optional --clone-detection policy. */
export function cloneDetectionOption(values: { 'clone-detection'?: string }): string | undefined {
  const v = values['clone-detection'];
  if (v !== undefined && !(CLONE_DETECTION_POLICIES as readonly string[]).includes(v)) throw new UsageError(`--clone-detection must be one of ${CLONE_DETECTION_POLICIES.join(', ')}`);
  return v;
}

/** The optional --self-service setting. */
export function selfServiceOption(values: { 'self-service'?: string }): string | undefined {
  const v = values['self-service'];
  if (v !== undefined && !(SELF_SERVICE_SETTINGS as readonly string[]).includes(v)) throw new UsageError(`--self-service must be one of ${SELF_SERVICE_SETTINGS.join(', ')}`);
  return v;
}
