import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { BackendClientCapabilitiesSchema, FrontendClientCapabilitiesSchema } from '../../../gen/passkeyauth/common/v1/client_information_pb.js';
import { capabilityMapOf, hasPlatformAuthenticator } from '../clientCapabilities.js';

describe('capabilityMapOf', () => {
  it('keeps the reported capabilities of either proto variant, false ones included, and leaves out the unreported', () => {
    const backend = create(BackendClientCapabilitiesSchema, { conditionalCreate: false, hybridTransport: true });
    const frontend = create(FrontendClientCapabilitiesSchema, { passkeyPlatformAuthenticator: true, userVerifyingPlatformAuthenticator: false, conditionalMediation: true });
    expect(capabilityMapOf(backend)).toEqual({ conditionalCreate: false, hybridTransport: true });
    expect(capabilityMapOf(frontend)).toEqual({ passkeyPlatformAuthenticator: true, userVerifyingPlatformAuthenticator: false, conditionalMediation: true });
    expect(capabilityMapOf(undefined)).toEqual({});
  });

  it('copies nothing but the five capabilities (no $typeName, no unknown fields)', () => {
    const map = capabilityMapOf(create(BackendClientCapabilitiesSchema, { conditionalMediation: true }));
    expect(Object.keys(map)).toEqual(['conditionalMediation']);
  });
});

describe('hasPlatformAuthenticator', () => {
  it('is true when the legacy check or either platform capability says so, false otherwise', () => {
    expect(hasPlatformAuthenticator(true, {})).toBe(true);
    expect(hasPlatformAuthenticator(false, { passkeyPlatformAuthenticator: true })).toBe(true);
    expect(hasPlatformAuthenticator(undefined, { userVerifyingPlatformAuthenticator: true })).toBe(true);
    expect(hasPlatformAuthenticator(false, { passkeyPlatformAuthenticator: false, hybridTransport: true })).toBe(false);
    expect(hasPlatformAuthenticator(undefined, {})).toBe(false);
  });
});
