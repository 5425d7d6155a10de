/**
 * The flags of a connect init: the client's (checkClientFlags.ts) merged with the project's own,
 * which win, so a project can switch a client-side behaviour for every client at once.
 */
export function mergeFlags(client: Record<string, string>, project: Record<string, string> | undefined): Record<string, string> {
  return { ...client, ...(project ?? {}) };
}
