import { rotateSigningKey } from '../../projects/domain/rotateSigningKey.js';
import { requiredOption } from './checkOptions.js';
import { defineProjectCommand } from './projectCommand.js';

export const rotateSigningKeyCommand = defineProjectCommand({
  name: 'rotate-signing-key',
  usage: `  rotate-signing-key --project pro-…
      publishes a new signing key at once; it signs tokens from activatesAt (15 minutes later, so
      every JWKS cache has it by then). Older keys stay in the JWKS until their last token expires
      (retiresAt). The client key is issued again with the new key (the old one works until its
      key retires); prints {projectID, kid, activatesAt, clientKey, retiring: [{kid, retiresAt}]}`,
  options: { project: { type: 'string' } },
  parse: (v) => ({ projectId: requiredOption(v, 'project') }),
  async run(deps, { projectId }) {
    const r = await rotateSigningKey(deps, projectId);
    return {
      projectID: r.projectId,
      kid: r.kid,
      activatesAt: r.activatesAt.toISOString(),
      clientKey: r.clientKey,
      retiring: r.retiring.map((k) => ({ kid: k.kid, retiresAt: k.retiresAt.toISOString() })),
    };
  },
});
