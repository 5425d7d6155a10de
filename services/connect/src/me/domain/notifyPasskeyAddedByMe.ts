/**
 * Tells the user that a passkey was added to their account through /v2/me (F4), by the challenge
 * service's "passkey added" email (the notice B3 sendNotification sends).
 *
 * It goes only to a proven address: the user's primary email, else their oldest verified one. An
 * unproven address may be anyone's (whoever typed it), so a user without a verified email gets no
 * notice at all, which is logged. A failed delivery (no SMTP configured, the mail server down) is
 * logged and never undoes the passkey, which is stored by then.
 */
import type { MeCall, MeDeps } from './meDeps.js';

export async function notifyPasskeyAddedByMe(deps: Pick<MeDeps, 'identifiers' | 'challenges' | 'logger'>, call: MeCall, userId: string, passkeyName: string | undefined): Promise<void> {
  const emails = (await deps.identifiers.listForUser(call.projectId, userId)).filter((i) => i.type === 'email');
  const proven = emails.find((i) => i.status === 'primary') ?? emails.find((i) => i.status === 'verified');
  if (!proven) {
    deps.logger.info({ projectId: call.projectId, userId }, 'passkey-added notice not sent: the user has no verified email address');
    return;
  }
  try {
    await deps.challenges.notifyPasskeyAdded(call, { userId, email: proven.value, ...(passkeyName ? { passkeyName } : {}) });
  } catch (err) {
    deps.logger.warn({ err: (err as Error).message, projectId: call.projectId, userId }, 'passkey-added notice could not be sent');
  }
}
