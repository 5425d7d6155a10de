/**
 * The append decision of B2: whether to offer a passkey, which variant to show, and whether to
 * create it automatically or as a conditional create. Rules are checked in a fixed order; the first
 * one that refuses names the decision tag. forcePasskeyAppend overrides every refusal.
 */
import type { ClientCapabilities } from './clientCapabilities.js';
import type { RestrictedBrowserVerdict } from './restrictedBrowser.js';
import { appendVariantOf, type AppendVariant } from './situation.js';
import type { AppendFlags, AppendInsights, HistoryData } from './types.js';

export const APPEND_TAGS = {
  noPasskeySupport: 'env-no-platform-pk-support',
  envPasskeyExists: 'user-env-pk-exists',
  restrictedBrowser: 'env-restricted-browser',
  inAppCooldown: 'in-app-cooldown',
  defaultCooldown: 'default-cooldown',
  afterErrorCooldown: 'after-error-cooldown',
  afterHybridCooldown: 'after-hybrid-cooldown',
  userNoPasskeys: 'user-no-pks',
  userEnvNoPasskeys: 'user-env-no-pks',
  forced: 'forced-append',
  userAppendBlacklisted: 'user-append-blacklisted',
} as const;

export interface AppendDecisionInput {
  capabilities: ClientCapabilities;
  restrictedBrowser: RestrictedBrowserVerdict;
  flags: AppendFlags;
  situation: string;
  userPasskeyCount: number;
  /** One of the user's passkeys was created in this client environment. */
  envHasPasskey: boolean;
  history: HistoryData;
  /** Variants the application blacklisted for the user through passkey events (passkeyEventEffects). */
  blacklistedVariants?: readonly AppendVariant[];
}

export interface AppendDecision {
  appendAllow: boolean;
  decision: AppendInsights['decision'];
}

/**
 * askForInAppAppend is a free string in the interface. "allow" (or "true", for applications that
 * send a boolean as text), in any case, lets restricted browsers be offered an append; anything
 * else, including "", keeps them out.
 */
export function inAppAppendAllowed(askForInAppAppend: string | undefined): boolean {
  const value = (askForInAppAppend ?? '').trim().toLowerCase();
  return value === 'allow' || value === 'true';
}

export function decideAppend(input: AppendDecisionInput): AppendDecision {
  const { capabilities: caps, flags, history } = input;
  const variant = appendVariantOf(input.situation);
  const refusal = firstRefusal(input, variant);
  const forced = refusal !== null && flags.forcePasskeyAppend === true;
  const appendAllow = refusal === null || forced;

  let tag: string;
  if (forced) tag = APPEND_TAGS.forced;
  else if (refusal !== null) tag = refusal;
  else tag = input.userPasskeyCount === 0 ? APPEND_TAGS.userNoPasskeys : APPEND_TAGS.userEnvNoPasskeys;

  const customData: Record<string, unknown> = {};
  if (forced) customData.overriddenTag = refusal;
  if (input.restrictedBrowser.restricted) customData.restrictedBrowserReason = input.restrictedBrowser.reason;

  // Auto append opens the platform's dialog without a click; without a platform authenticator that
  // dialog would be a QR code, and after a recent failed auto attempt it would nag.
  let auto = false;
  if (flags.askForAutoAppend) {
    const skipped = !appendAllow ? 'append-not-allowed' : !caps.platformAuthenticator ? 'no-platform-authenticator' : history.autoCooldown ? 'auto-cooldown' : null;
    auto = skipped === null;
    if (skipped) customData.autoSkipped = skipped;
  }
  let conditional = false;
  if (flags.askForConditionalCreate) {
    const skipped = !appendAllow ? 'append-not-allowed' : !caps.conditionalCreate ? 'conditional-create-unsupported' : history.conditionalCreateCooldown ? 'conditional-create-cooldown' : null;
    conditional = skipped === null;
    if (skipped) customData.conditionalSkipped = skipped;
  }

  return {
    appendAllow,
    decision: {
      tag,
      isRestrictedBrowser: input.restrictedBrowser.restricted,
      variant: appendAllow ? variant : 'none',
      auto,
      conditional,
      customData,
    },
  };
}

/** The tag of the first rule that refuses the append, or null when none does. */
function firstRefusal(input: AppendDecisionInput, variant: ReturnType<typeof appendVariantOf>): string | null {
  // Neither a platform authenticator nor hybrid: the client has no way to create a passkey.
  if (!input.capabilities.canCreatePasskey) return APPEND_TAGS.noPasskeySupport;
  // The application reported that this kind of offer must not be made to the user for now.
  if (input.blacklistedVariants?.includes(variant)) return APPEND_TAGS.userAppendBlacklisted;
  // A passkey from this environment already signs the user in here; another one adds nothing.
  if (input.envHasPasskey) return APPEND_TAGS.envPasskeyExists;
  if (input.restrictedBrowser.restricted) {
    // Passkeys made in a web view are often lost with the app's storage, so only on request.
    if (!inAppAppendAllowed(input.flags.askForInAppAppend)) return APPEND_TAGS.restrictedBrowser;
    if (input.history.inAppCooldown) return APPEND_TAGS.inAppCooldown;
  }
  // The same kind of offer recently went unanswered or failed: wait out the cooldown.
  if (variant === 'default' && input.history.defaultCooldown) return APPEND_TAGS.defaultCooldown;
  if (variant === 'after-error' && input.history.afterErrorCooldown) return APPEND_TAGS.afterErrorCooldown;
  if (variant === 'after-hybrid' && input.history.afterHybridCooldown) return APPEND_TAGS.afterHybridCooldown;
  return null;
}
