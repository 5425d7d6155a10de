/**
 * Reads the operator's optional AAGUID metadata file (AAGUID_METADATA_FILE): a JSON object keyed by
 * AAGUID, each value `{name, icon_light, icon_dark}` as in the community
 * passkey-authenticator-aaguids list. A file that is unreadable or of another shape stops start-up.
 */
import { readFile } from 'node:fs/promises';
import type { AaguidMetadataEntry } from './domain/aaguidDetails.js';

const AAGUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export async function readAaguidMetadataFile(path: string): Promise<Record<string, AaguidMetadataEntry>> {
  const text = await readFile(path, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new Error(`AAGUID_METADATA_FILE ${path} is not JSON: ${(err as Error).message}`, { cause: err });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`AAGUID_METADATA_FILE ${path} must hold a JSON object keyed by AAGUID`);
  }
  const out: Record<string, AaguidMetadataEntry> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!AAGUID.test(key)) throw new Error(`AAGUID_METADATA_FILE ${path}: key "${key}" is not an AAGUID`);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error(`AAGUID_METADATA_FILE ${path}: the entry of ${key} must be an object`);
    }
    const v = value as Record<string, unknown>;
    for (const field of ['name', 'icon_light', 'icon_dark'] as const) {
      if (v[field] !== undefined && v[field] !== null && typeof v[field] !== 'string') {
        throw new Error(`AAGUID_METADATA_FILE ${path}: ${key}.${field} must be a string`);
      }
    }
    out[key] = { name: v.name as string | undefined, icon_light: v.icon_light as string | null | undefined, icon_dark: v.icon_dark as string | null | undefined };
  }
  return out;
}
