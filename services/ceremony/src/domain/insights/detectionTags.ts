/**
 * detectionInsights.tags: named observations, grouped by the reference's categories. Tags are
 * listed in a fixed order (support, clientEnv, passkey, history) so responses are stable.
 */
import type { ClientCapabilities } from './clientCapabilities.js';
import type { DetectionTag, HistoryData } from './types.js';

export interface DetectionFacts {
  capabilities: ClientCapabilities;
  restrictedBrowser: boolean;
  /** The user was seen in this client environment before this request (see docs/api/passkeys-and-insights.md, "detectionInsights"). */
  knownEnv: boolean;
  userPasskeyCount: number;
  /** One of the user's passkeys was created in this client environment. */
  envHasPasskey: boolean;
  history: HistoryData;
}

export function detectionTagsOf(facts: DetectionFacts): DetectionTag[] {
  const tags: DetectionTag[] = [];
  const support = (name: string) => tags.push({ category: 'support', name });
  const caps = facts.capabilities;

  support(caps.platformAuthenticator ? 'platform-authenticator' : 'no-platform-authenticator');
  if (caps.conditionalMediation) support('conditional-mediation');
  if (caps.conditionalCreate) support('conditional-create');
  if (caps.hybrid) support('hybrid');
  if (caps.passwordManager) support('password-manager');
  if (caps.privateMode) support('private-mode');
  if (facts.restrictedBrowser) support('restricted-browser');

  tags.push({ category: 'clientEnv', name: facts.knownEnv ? 'known-env' : 'new-env' });

  tags.push({ category: 'passkey', name: facts.userPasskeyCount > 0 ? 'user-has-passkeys' : 'user-no-passkeys' });
  if (facts.envHasPasskey) tags.push({ category: 'passkey', name: 'env-has-passkey' });

  const h = facts.history;
  const cooldowns: Array<[boolean, string]> = [
    [h.defaultCooldown, 'default-cooldown'],
    [h.afterErrorCooldown, 'after-error-cooldown'],
    [h.afterHybridCooldown, 'after-hybrid-cooldown'],
    [h.autoCooldown, 'auto-cooldown'],
    [h.conditionalCreateCooldown, 'conditional-create-cooldown'],
    [h.inAppCooldown, 'in-app-cooldown'],
  ];
  for (const [active, name] of cooldowns) if (active) tags.push({ category: 'history', name });
  return tags;
}
