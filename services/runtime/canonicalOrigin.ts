/**
 * The one rule for comparing web origins, shared by the gateway (CORS) and the connect service
 * (which stores projects' origins): an origin is the serialization browsers send in the Origin
 * header — scheme, lower-case host, port only when not the default, no path, no trailing slash.
 * A value in any other spelling (`http://LOCALHOST:3000`, `http://localhost:3000/`) is not an
 * origin a browser sent, so it matches nothing.
 */
export function canonicalOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.origin === value ? value : null;
}
