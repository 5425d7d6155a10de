/** detectionInsights: what the service knows about the user and this client, shared by append and login. */
import { detectionTagsOf, type DetectionFacts } from './detectionTags.js';
import { passwordManagerIdsOf } from './passkeyLocation.js';
import type { DetectionInsights, PasskeySummary } from './types.js';

export interface DetectionInput extends Omit<DetectionFacts, 'userPasskeyCount'> {
  passkeys: PasskeySummary[];
  /** Keys of the client environments recorded for the user, most recently seen first. */
  clientEnvIds: string[];
}

export function buildDetectionInsights(input: DetectionInput): DetectionInsights {
  return {
    tags: detectionTagsOf({ ...input, userPasskeyCount: input.passkeys.length }),
    credentialIds: input.passkeys.map((p) => p.id),
    clientEnvIds: input.clientEnvIds,
    passwordManagerIds: passwordManagerIdsOf(input.passkeys),
    historyData: input.history,
  };
}
