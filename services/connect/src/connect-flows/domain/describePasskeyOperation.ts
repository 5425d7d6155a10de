/** passkeyOperation of connect finish answers (the client environment remembers it: rememberOperation.ts). */
import type { PasskeyData } from '../../shared/domain/passkeyCeremonies.js';
import type { LoginIdentifier } from '../../users/index.js';

export interface PasskeyOperationResult {
  operationType: 'append' | 'verify';
  identifierValue: string;
  identifierType: string;
  ceremonyType: string;
  aaguidDetails?: { aaguid: string; name: string; iconLight: string; iconDark: string };
}

export function describePasskeyOperation(operationType: 'append' | 'verify', identifier: LoginIdentifier, data: PasskeyData | undefined): PasskeyOperationResult {
  return {
    operationType,
    identifierValue: identifier.value,
    identifierType: identifier.type,
    ceremonyType: data?.ceremonyType || 'local',
    ...(data?.aaguidDetails ? { aaguidDetails: { aaguid: data.aaguidDetails.aaguid, name: data.aaguidDetails.name, iconLight: data.aaguidDetails.iconLight, iconDark: data.aaguidDetails.iconDark } } : {}),
  };
}
