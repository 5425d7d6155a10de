/** The browser's own report at a flow's init (connect and sign-up/login processes keep it to describe the browser to the ceremony). */
import type { ClientCapabilityMap } from '../../../../runtime/clientCapabilities.js';

/** What the browser said about itself at init, kept to describe it to the ceremony later. */
export interface ClientSnapshot {
  uvpaAvailable: boolean;
  conditionalMediationAvailable: boolean;
  /** The WebAuthn client capabilities the browser reported; one it did not report is left out. */
  capabilities: ClientCapabilityMap;
  bluetoothAvailable?: boolean;
  privateMode?: boolean;
  visitorId?: string;
  isNative?: boolean;
  webdriver?: boolean;
}
