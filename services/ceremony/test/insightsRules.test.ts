/** Table tests of the pure insights rules: each rule is shown holding and failing. */
import { describe, expect, it } from 'vitest';
import { APPEND_TAGS, decideAppend, inAppAppendAllowed, type AppendDecisionInput } from '../src/domain/insights/appendDecision.js';
import { readClientCapabilities, type ClientCapabilities } from '../src/domain/insights/clientCapabilities.js';
import { clientEnvKey, MAX_HANDLE_LENGTH } from '../src/domain/insights/clientEnvKey.js';
import { buildDetectionInsights } from '../src/domain/insights/detectionInsights.js';
import { detectionTagsOf, type DetectionFacts } from '../src/domain/insights/detectionTags.js';
import { computeHistoryData, emptyHistoryData, type AppendHistoryEvent, type HistoryWindows } from '../src/domain/insights/historyData.js';
import { decideLogin, LOGIN_TAGS, type LoginDecisionInput } from '../src/domain/insights/loginDecision.js';
import { isFromThisEnv, isLikelySyncedHere, isSecurityKey, passwordManagerIdsOf } from '../src/domain/insights/passkeyLocation.js';
import { appendVariantOf } from '../src/domain/insights/situation.js';
import type { ClientContext, HistoryData, PasskeySummary } from '../src/domain/insights/types.js';
import { osFamilyOf } from '../src/domain/insights/userAgent.js';

const CHROME_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

function client(overrides: Partial<ClientContext> = {}): ClientContext {
  return { remoteAddress: '::1', userAgent: CHROME_MAC, uvpaAvailable: false, conditionalMediationAvailable: false, capabilities: {}, ...overrides };
}

const ICLOUD = 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd';
const GPM = 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4';
const YUBIKEY = 'cb69481e-8ff7-4039-93ec-0a2729a154a8';

function passkey(overrides: Partial<PasskeySummary> = {}): PasskeySummary {
  return { id: 'cre-1', aaguid: ICLOUD, transports: ['internal', 'hybrid'], backupEligible: true, clientEnvKey: 'env-a', sourceOS: 'macOS', createdAt: new Date('2030-01-01T00:00:00Z'), ...overrides };
}
const securityKey = (overrides: Partial<PasskeySummary> = {}) => passkey({ id: 'cre-sk', aaguid: YUBIKEY, transports: ['usb', 'nfc'], backupEligible: false, sourceOS: 'Windows', ...overrides });

describe('readClientCapabilities', () => {
  it.each<[string, Partial<ClientContext>, keyof ClientCapabilities, boolean]>([
    ['uvpaAvailable gives a platform authenticator', { uvpaAvailable: true }, 'platformAuthenticator', true],
    ['capabilities.passkeyPlatformAuthenticator gives one', { capabilities: { passkeyPlatformAuthenticator: true } }, 'platformAuthenticator', true],
    ['capabilities.userVerifyingPlatformAuthenticator gives one', { capabilities: { userVerifyingPlatformAuthenticator: true } }, 'platformAuthenticator', true],
    ['no signal: no platform authenticator', { capabilities: { passkeyPlatformAuthenticator: false } }, 'platformAuthenticator', false],
    ['conditionalMediationAvailable', { conditionalMediationAvailable: true }, 'conditionalMediation', true],
    ['capabilities.conditionalMediation', { capabilities: { conditionalMediation: true } }, 'conditionalMediation', true],
    ['no conditional mediation', {}, 'conditionalMediation', false],
    ['capabilities.conditionalCreate', { capabilities: { conditionalCreate: true } }, 'conditionalCreate', true],
    ['no conditional create', {}, 'conditionalCreate', false],
    ['hybridTransport gives hybrid', { capabilities: { hybridTransport: true } }, 'hybrid', true],
    ['bluetooth gives hybrid', { bluetoothAvailable: true }, 'hybrid', true],
    ['no hybrid', { bluetoothAvailable: false }, 'hybrid', false],
    ['password manager', { passwordManagerAvailable: true }, 'passwordManager', true],
    ['no password manager', {}, 'passwordManager', false],
    ['private mode', { privateMode: true }, 'privateMode', true],
    ['platform authenticator alone can create', { uvpaAvailable: true }, 'canCreatePasskey', true],
    ['hybrid alone can create', { bluetoothAvailable: true }, 'canCreatePasskey', true],
    ['neither: cannot create', { conditionalMediationAvailable: true, passwordManagerAvailable: true }, 'canCreatePasskey', false],
  ])('%s', (_name, overrides, field, expected) => {
    expect(readClientCapabilities(client(overrides))[field]).toBe(expected);
  });
});

describe('clientEnvKey', () => {
  it('is the clientEnvHandle when given', () => {
    expect(clientEnvKey(client({ clientEnvHandle: 'ceh-123', javascriptFingerprint: 'fp' }))).toBe('ceh-123');
  });

  it('is derived from user agent and fingerprint without a handle, stably', () => {
    const a = clientEnvKey(client({ javascriptFingerprint: 'fp-1' }));
    expect(a).toMatch(/^derived-[A-Za-z0-9_-]{43}$/);
    expect(clientEnvKey(client({ javascriptFingerprint: 'fp-1', clientEnvHandle: '  ' }))).toBe(a);
    expect(clientEnvKey(client({ javascriptFingerprint: 'fp-2' }))).not.toBe(a);
    expect(clientEnvKey(client({ javascriptFingerprint: 'fp-1', userAgent: 'other' }))).not.toBe(a);
  });

  it('keeps user agent and fingerprint apart (no concatenation collisions)', () => {
    expect(clientEnvKey({ userAgent: 'ab', javascriptFingerprint: 'c' })).not.toBe(clientEnvKey({ userAgent: 'a', javascriptFingerprint: 'bc' }));
  });

  it('hashes oversized handles', () => {
    const long = 'h'.repeat(MAX_HANDLE_LENGTH + 1);
    expect(clientEnvKey(client({ clientEnvHandle: long }))).toMatch(/^handle-[A-Za-z0-9_-]{43}$/);
    expect(clientEnvKey(client({ clientEnvHandle: 'h'.repeat(MAX_HANDLE_LENGTH) }))).toBe('h'.repeat(MAX_HANDLE_LENGTH));
  });
});

describe('appendVariantOf', () => {
  it.each([
    ['default', 'default'],
    ['after-error', 'after-error'],
    ['after-hybrid', 'after-hybrid'],
    [' After_Error ', 'after-error'],
    ['post-login', 'default'],
    ['', 'default'],
    [undefined, 'default'],
  ])('%j → %s', (situation, variant) => {
    expect(appendVariantOf(situation)).toBe(variant);
  });
});

describe('passkey location', () => {
  it.each<[string, Partial<PasskeySummary>, boolean]>([
    ['usb+nfc, not backup eligible', { transports: ['usb', 'nfc'], backupEligible: false }, true],
    ['ble only', { transports: ['BLE'], backupEligible: false }, true],
    ['usb but backup eligible (synced)', { transports: ['usb'], backupEligible: true }, false],
    ['internal transport', { transports: ['internal'], backupEligible: false }, false],
    ['usb + hybrid (phone)', { transports: ['usb', 'hybrid'], backupEligible: false }, false],
    ['no transports reported', { transports: [], backupEligible: false }, false],
  ])('isSecurityKey: %s → %s', (_name, overrides, expected) => {
    expect(isSecurityKey(passkey(overrides))).toBe(expected);
  });

  it('isFromThisEnv: same key and not a security key', () => {
    expect(isFromThisEnv(passkey(), 'env-a')).toBe(true);
    expect(isFromThisEnv(passkey(), 'env-b')).toBe(false);
    expect(isFromThisEnv(passkey({ clientEnvKey: undefined }), 'env-a')).toBe(false);
    expect(isFromThisEnv(securityKey({ clientEnvKey: 'env-a' }), 'env-a')).toBe(false);
  });

  it.each<[string, Partial<PasskeySummary>, string, boolean]>([
    ['iPhone passkey on a Mac (iCloud Keychain)', { sourceOS: 'iOS' }, 'macOS', true],
    ['Mac passkey on an iPad', { sourceOS: 'macOS' }, 'iPadOS', true],
    ['Android passkey on another Android', { sourceOS: 'Android', aaguid: GPM }, 'Android', true],
    ['iPhone passkey on Windows', { sourceOS: 'iOS' }, 'Windows', false],
    ['not backup eligible', { sourceOS: 'macOS', backupEligible: false, transports: ['internal'] }, 'macOS', false],
    ['unknown source OS', { sourceOS: undefined }, 'macOS', false],
    ['unknown current OS', { sourceOS: 'Plan9' }, 'Plan9', false],
  ])('isLikelySyncedHere: %s → %s', (_name, overrides, osName, expected) => {
    expect(isLikelySyncedHere(passkey(overrides), osName)).toBe(expected);
  });

  it('osFamilyOf groups Apple platforms', () => {
    expect(['iOS', 'iPadOS', 'macOS', 'Mac OS'].map(osFamilyOf)).toEqual(['apple', 'apple', 'apple', 'apple']);
    expect(['Android', 'Windows', 'Chrome OS', 'Ubuntu', '', 'Tizen'].map(osFamilyOf)).toEqual(['android', 'windows', 'chromeos', 'linux', 'other', 'other']);
  });

  it('passwordManagerIds: distinct AAGUIDs, lower case, all-zero dropped', () => {
    const ids = passwordManagerIdsOf([
      passkey({ aaguid: ICLOUD.toUpperCase() }),
      passkey({ id: 'cre-2', aaguid: ICLOUD }),
      passkey({ id: 'cre-3', aaguid: '00000000-0000-0000-0000-000000000000' }),
      passkey({ id: 'cre-4', aaguid: GPM }),
      passkey({ id: 'cre-5', aaguid: '' }),
    ]);
    expect(ids).toEqual([ICLOUD, GPM]);
  });
});

describe('computeHistoryData', () => {
  const NOW = new Date('2030-06-15T12:00:00Z');
  const MIN = 60_000;
  const DAY = 24 * 60 * MIN;
  const windows: HistoryWindows = { cooldownMs: 7 * DAY, pendingGraceMs: 10 * MIN, decisionLinkMs: 10 * MIN };
  const ago = (ms: number) => new Date(NOW.getTime() - ms);
  const ev = (type: AppendHistoryEvent['type'], at: Date, extra: Partial<AppendHistoryEvent> = {}): AppendHistoryEvent => ({ type, at, ...extra });
  const history = (events: AppendHistoryEvent[], w: HistoryWindows = windows) => computeHistoryData(events, NOW, w);

  it('no events: zero counts, no cooldowns', () => {
    expect(history([])).toEqual(emptyHistoryData());
  });

  it('counts append starts per variant; unknown situations count as default', () => {
    const h = history([
      ev('append-started', ago(30 * DAY), { situation: 'default' }),
      ev('append-started', ago(20 * DAY), { situation: 'something-new' }),
      ev('append-started', ago(20 * DAY)),
      ev('append-started', ago(10 * DAY), { situation: 'after-error' }),
      ev('append-started', ago(9 * DAY), { situation: 'after-hybrid' }),
      ev('append-started', ago(8 * DAY), { situation: 'after-hybrid' }),
      ev('append-decided', ago(8 * DAY), { situation: 'after-hybrid' }),
    ]);
    expect([h.defaultCount, h.afterErrorCount, h.afterHybridCount, h.autoCount]).toEqual([3, 1, 2, 0]);
  });

  it('ignores events after now', () => {
    expect(history([ev('append-started', new Date(NOW.getTime() + MIN))]).defaultCount).toBe(0);
  });

  it('a failed start inside the window cools its variant down at once', () => {
    const h = history([ev('append-started', ago(MIN), { situation: 'after-error', processId: 'p1' }), ev('append-failed', ago(MIN / 2), { processId: 'p1' })]);
    expect(h).toMatchObject({ afterErrorCooldown: true, defaultCooldown: false, afterHybridCooldown: false });
  });

  it('an abandoned start (no outcome after the pending grace) cools down; a running one does not', () => {
    expect(history([ev('append-started', ago(11 * MIN))]).defaultCooldown).toBe(true);
    expect(history([ev('append-started', ago(9 * MIN))]).defaultCooldown).toBe(false);
  });

  it('a succeeded start does not cool down, even after a failure of the same attempt', () => {
    const h = history([
      ev('append-started', ago(DAY), { processId: 'p1' }),
      ev('append-failed', ago(DAY - MIN), { processId: 'p1' }),
      ev('append-succeeded', ago(DAY - 2 * MIN), { processId: 'p1' }),
    ]);
    expect(h.defaultCooldown).toBe(false);
  });

  it('cooldowns end with the window (boundary: exactly cooldownMs ago is outside)', () => {
    expect(history([ev('append-started', ago(7 * DAY - MIN))]).defaultCooldown).toBe(true);
    expect(history([ev('append-started', ago(7 * DAY))]).defaultCooldown).toBe(false);
    expect(history([ev('append-started', ago(8 * DAY))]).defaultCooldown).toBe(false);
  });

  it('a configurable window: 1 day', () => {
    const oneDay = { ...windows, cooldownMs: DAY };
    expect(history([ev('append-started', ago(2 * DAY))], oneDay).defaultCooldown).toBe(false);
    expect(history([ev('append-started', ago(DAY / 2))], oneDay).defaultCooldown).toBe(true);
  });

  it('a cooldown of 0 disables cooldowns', () => {
    expect(history([ev('append-started', ago(DAY)), ev('append-failed', ago(DAY))], { ...windows, cooldownMs: 0 }).defaultCooldown).toBe(false);
  });

  it('outcomes belong to their process, not to the latest start', () => {
    const h = history([
      ev('append-started', ago(2 * DAY), { processId: 'p1', situation: 'default' }),
      ev('append-started', ago(DAY), { processId: 'p2', situation: 'after-error' }),
      ev('append-succeeded', ago(DAY - MIN), { processId: 'p1' }),
      ev('append-failed', ago(DAY - 2 * MIN), { processId: 'p2' }),
    ]);
    expect(h).toMatchObject({ defaultCooldown: false, afterErrorCooldown: true });
  });

  it('an outcome whose process has no start falls back to the latest start before it', () => {
    const h = history([ev('append-started', ago(DAY), { situation: 'after-hybrid' }), ev('append-succeeded', ago(DAY - MIN), { processId: 'p9' })]);
    expect(h.afterHybridCooldown).toBe(false);
  });

  it('without process IDs an outcome belongs to the latest start before it', () => {
    const h = history([
      ev('append-started', ago(3 * DAY), { situation: 'default' }),
      ev('append-succeeded', ago(3 * DAY - MIN)),
      ev('append-started', ago(DAY), { situation: 'after-hybrid' }),
    ]);
    expect(h).toMatchObject({ defaultCooldown: false, afterHybridCooldown: true });
  });

  it('auto: starts linked to an auto decision count, and cool auto down when unsuccessful', () => {
    const h = history([
      ev('append-decided', ago(2 * DAY), { auto: true, situation: 'default' }),
      ev('append-started', ago(2 * DAY - 1000), { situation: 'default', processId: 'p1' }),
      ev('append-succeeded', ago(2 * DAY - 5000), { processId: 'p1' }),
      ev('append-decided', ago(DAY), { auto: true, situation: 'default' }),
      ev('append-started', ago(DAY - 1000), { situation: 'default', processId: 'p2' }),
      ev('append-failed', ago(DAY - 5000), { processId: 'p2' }),
    ]);
    expect(h).toMatchObject({ autoCount: 2, autoCooldown: true, defaultCooldown: true });
  });

  it('auto: a succeeded auto append does not cool down; decisions too far from a start are not linked', () => {
    const h = history([
      ev('append-decided', ago(DAY), { auto: true }),
      ev('append-started', ago(DAY - 1000), { processId: 'p1' }),
      ev('append-succeeded', ago(DAY - 2000), { processId: 'p1' }),
      ev('append-decided', ago(3 * DAY), { auto: true }),
      ev('append-started', ago(3 * DAY - 11 * MIN)),
    ]);
    expect(h).toMatchObject({ autoCount: 1, autoCooldown: false, defaultCooldown: true });
  });

  it('links a start to the nearest decision of its variant', () => {
    const h = history([
      ev('append-decided', ago(DAY + 2000), { auto: true, situation: 'after-error' }),
      ev('append-decided', ago(DAY + 5000), { auto: false, situation: 'default' }),
      ev('append-started', ago(DAY), { situation: 'default' }),
    ]);
    expect(h).toMatchObject({ autoCount: 0, autoCooldown: false, defaultCooldown: true });
  });

  it('conditional create cooldown from an unsuccessful conditional attempt only', () => {
    const attempt = (conditional: boolean, outcome: AppendHistoryEvent['type']) =>
      history([ev('append-decided', ago(DAY), { conditional }), ev('append-started', ago(DAY), { processId: 'p' }), ev(outcome, ago(DAY - 1000), { processId: 'p' })]);
    expect(attempt(true, 'append-failed').conditionalCreateCooldown).toBe(true);
    expect(attempt(true, 'append-succeeded').conditionalCreateCooldown).toBe(false);
    expect(attempt(false, 'append-failed').conditionalCreateCooldown).toBe(false);
  });

  it('in-app cooldown from an unsuccessful start in a restricted browser (start or decision)', () => {
    expect(history([ev('append-started', ago(DAY), { restrictedBrowser: true })]).inAppCooldown).toBe(true);
    expect(history([ev('append-decided', ago(DAY), { restrictedBrowser: true }), ev('append-started', ago(DAY))]).inAppCooldown).toBe(true);
    expect(history([ev('append-started', ago(DAY), { restrictedBrowser: false })]).inAppCooldown).toBe(false);
    expect(history([ev('append-started', ago(DAY), { restrictedBrowser: true }), ev('append-succeeded', ago(DAY - 1))]).inAppCooldown).toBe(false);
  });
});

const NO_HISTORY = emptyHistoryData();
const facts = (overrides: Partial<DetectionFacts> = {}): DetectionFacts => ({
  capabilities: readClientCapabilities(client()),
  restrictedBrowser: false,
  knownEnv: false,
  userPasskeyCount: 0,
  envHasPasskey: false,
  history: NO_HISTORY,
  ...overrides,
});
const names = (f: DetectionFacts) => detectionTagsOf(f).map((t) => `${t.category}:${t.name}`);

describe('detectionTagsOf', () => {
  it('a bare client: no platform authenticator, new env, no passkeys', () => {
    expect(names(facts())).toEqual(['support:no-platform-authenticator', 'clientEnv:new-env', 'passkey:user-no-passkeys']);
  });

  it('a capable client with passkeys here and cooldowns', () => {
    const capable = readClientCapabilities(
      client({ uvpaAvailable: true, conditionalMediationAvailable: true, bluetoothAvailable: true, passwordManagerAvailable: true, privateMode: true, capabilities: { conditionalCreate: true } }),
    );
    const tags = names(
      facts({ capabilities: capable, restrictedBrowser: true, knownEnv: true, userPasskeyCount: 2, envHasPasskey: true, history: { ...NO_HISTORY, afterErrorCooldown: true, inAppCooldown: true } }),
    );
    expect(tags).toEqual([
      'support:platform-authenticator',
      'support:conditional-mediation',
      'support:conditional-create',
      'support:hybrid',
      'support:password-manager',
      'support:private-mode',
      'support:restricted-browser',
      'clientEnv:known-env',
      'passkey:user-has-passkeys',
      'passkey:env-has-passkey',
      'history:after-error-cooldown',
      'history:in-app-cooldown',
    ]);
  });

  it('every history flag has its tag', () => {
    const all: HistoryData = { ...NO_HISTORY, defaultCooldown: true, afterErrorCooldown: true, afterHybridCooldown: true, autoCooldown: true, conditionalCreateCooldown: true, inAppCooldown: true };
    expect(detectionTagsOf(facts({ history: all })).filter((t) => t.category === 'history').map((t) => t.name)).toEqual([
      'default-cooldown',
      'after-error-cooldown',
      'after-hybrid-cooldown',
      'auto-cooldown',
      'conditional-create-cooldown',
      'in-app-cooldown',
    ]);
  });

  it('buildDetectionInsights carries ids, password managers and history', () => {
    const d = buildDetectionInsights({ ...facts(), passkeys: [passkey(), passkey({ id: 'cre-2', aaguid: GPM })], clientEnvIds: ['env-a', 'env-b'] });
    expect(d.credentialIds).toEqual(['cre-1', 'cre-2']);
    expect(d.clientEnvIds).toEqual(['env-a', 'env-b']);
    expect(d.passwordManagerIds).toEqual([ICLOUD, GPM]);
    expect(d.historyData).toBe(NO_HISTORY);
    expect(d.tags).toContainEqual({ category: 'passkey', name: 'user-has-passkeys' });
  });
});

describe('decideAppend', () => {
  const capable = readClientCapabilities(client({ uvpaAvailable: true, conditionalMediationAvailable: true, capabilities: { conditionalCreate: true } }));
  const input = (overrides: Partial<AppendDecisionInput> = {}): AppendDecisionInput => ({
    capabilities: capable,
    restrictedBrowser: { restricted: false, reason: null },
    flags: { forcePasskeyAppend: false, askForAutoAppend: false, askForConditionalCreate: false, askForInAppAppend: '' },
    situation: 'default',
    userPasskeyCount: 0,
    envHasPasskey: false,
    history: NO_HISTORY,
    ...overrides,
  });
  const flags = (f: Partial<AppendDecisionInput['flags']>) => ({ ...input().flags, ...f });
  const inApp = { restricted: true, reason: 'in-app:Instagram' };
  const hybridOnly = readClientCapabilities(client({ bluetoothAvailable: true }));
  const nothing = readClientCapabilities(client());

  it.each<[string, Partial<AppendDecisionInput>, boolean, string, string]>([
    ['first passkey: allowed', {}, true, APPEND_TAGS.userNoPasskeys, 'default'],
    ['passkeys elsewhere: allowed', { userPasskeyCount: 2 }, true, APPEND_TAGS.userEnvNoPasskeys, 'default'],
    ['hybrid only is enough', { capabilities: hybridOnly }, true, APPEND_TAGS.userNoPasskeys, 'default'],
    ['no platform authenticator and no hybrid', { capabilities: nothing }, false, 'env-no-platform-pk-support', 'none'],
    ['…unless forced', { capabilities: nothing, flags: flags({ forcePasskeyAppend: true }) }, true, APPEND_TAGS.forced, 'default'],
    ['a passkey from this env exists', { envHasPasskey: true, userPasskeyCount: 1 }, false, APPEND_TAGS.envPasskeyExists, 'none'],
    ['…unless forced', { envHasPasskey: true, flags: flags({ forcePasskeyAppend: true }) }, true, APPEND_TAGS.forced, 'default'],
    ['restricted browser without askForInAppAppend', { restrictedBrowser: inApp }, false, APPEND_TAGS.restrictedBrowser, 'none'],
    ['restricted browser with askForInAppAppend=allow', { restrictedBrowser: inApp, flags: flags({ askForInAppAppend: 'allow' }) }, true, APPEND_TAGS.userNoPasskeys, 'default'],
    ['restricted browser with askForInAppAppend=deny', { restrictedBrowser: inApp, flags: flags({ askForInAppAppend: 'deny' }) }, false, APPEND_TAGS.restrictedBrowser, 'none'],
    ['restricted browser allowed but cooling down', { restrictedBrowser: inApp, flags: flags({ askForInAppAppend: 'allow' }), history: { ...NO_HISTORY, inAppCooldown: true } }, false, APPEND_TAGS.inAppCooldown, 'none'],
    ['in-app cooldown does not matter outside restricted browsers', { history: { ...NO_HISTORY, inAppCooldown: true } }, true, APPEND_TAGS.userNoPasskeys, 'default'],
    ['restricted browser, forced', { restrictedBrowser: inApp, flags: flags({ forcePasskeyAppend: true }) }, true, APPEND_TAGS.forced, 'default'],
    ['default situation cooling down', { history: { ...NO_HISTORY, defaultCooldown: true } }, false, APPEND_TAGS.defaultCooldown, 'none'],
    ['unknown situation uses the default cooldown', { situation: 'checkout', history: { ...NO_HISTORY, defaultCooldown: true } }, false, APPEND_TAGS.defaultCooldown, 'none'],
    ['after-error cooling down', { situation: 'after-error', history: { ...NO_HISTORY, afterErrorCooldown: true } }, false, APPEND_TAGS.afterErrorCooldown, 'none'],
    ['after-hybrid cooling down', { situation: 'after-hybrid', history: { ...NO_HISTORY, afterHybridCooldown: true } }, false, APPEND_TAGS.afterHybridCooldown, 'none'],
    ['another situation\'s cooldown does not apply', { situation: 'after-error', history: { ...NO_HISTORY, defaultCooldown: true } }, true, APPEND_TAGS.userNoPasskeys, 'after-error'],
    ['cooldown, forced', { history: { ...NO_HISTORY, defaultCooldown: true }, flags: flags({ forcePasskeyAppend: true }) }, true, APPEND_TAGS.forced, 'default'],
    ['after-hybrid variant', { situation: 'after-hybrid' }, true, APPEND_TAGS.userNoPasskeys, 'after-hybrid'],
    ['unknown situation → default variant', { situation: 'checkout' }, true, APPEND_TAGS.userNoPasskeys, 'default'],
  ])('%s', (_name, overrides, allow, tag, variant) => {
    const { appendAllow, decision } = decideAppend(input(overrides));
    expect({ appendAllow, tag: decision.tag, variant: decision.variant }).toEqual({ appendAllow: allow, tag, variant });
  });

  it('rule order: no support before env passkey before restricted browser before cooldown', () => {
    const all = { capabilities: nothing, envHasPasskey: true, restrictedBrowser: inApp, history: { ...NO_HISTORY, defaultCooldown: true } };
    expect(decideAppend(input(all)).decision.tag).toBe('env-no-platform-pk-support');
    expect(decideAppend(input({ ...all, capabilities: capable })).decision.tag).toBe(APPEND_TAGS.envPasskeyExists);
    expect(decideAppend(input({ ...all, capabilities: capable, envHasPasskey: false })).decision.tag).toBe(APPEND_TAGS.restrictedBrowser);
  });

  it('forced decisions say what they overrode', () => {
    expect(decideAppend(input({ envHasPasskey: true, flags: flags({ forcePasskeyAppend: true }) })).decision.customData).toEqual({ overriddenTag: APPEND_TAGS.envPasskeyExists });
    expect(decideAppend(input({ flags: flags({ forcePasskeyAppend: true }) })).decision.tag).toBe(APPEND_TAGS.userNoPasskeys);
  });

  it('isRestrictedBrowser follows the user agent whatever the decision', () => {
    expect(decideAppend(input({ restrictedBrowser: inApp, flags: flags({ forcePasskeyAppend: true }) })).decision).toMatchObject({ isRestrictedBrowser: true, customData: { restrictedBrowserReason: 'in-app:Instagram' } });
    expect(decideAppend(input()).decision.isRestrictedBrowser).toBe(false);
  });

  it.each<[string, Partial<AppendDecisionInput>, boolean, string | undefined]>([
    ['asked, allowed, platform authenticator', { flags: flags({ askForAutoAppend: true }) }, true, undefined],
    ['not asked', {}, false, undefined],
    ['asked, not allowed', { flags: flags({ askForAutoAppend: true }), envHasPasskey: true }, false, 'append-not-allowed'],
    ['asked, hybrid only (no platform authenticator)', { flags: flags({ askForAutoAppend: true }), capabilities: hybridOnly }, false, 'no-platform-authenticator'],
    ['asked, auto cooling down', { flags: flags({ askForAutoAppend: true }), history: { ...NO_HISTORY, autoCooldown: true } }, false, 'auto-cooldown'],
  ])('auto: %s', (_name, overrides, auto, skipped) => {
    const { decision } = decideAppend(input(overrides));
    expect(decision.auto).toBe(auto);
    expect(decision.customData.autoSkipped).toBe(skipped);
  });

  it.each<[string, Partial<AppendDecisionInput>, boolean, string | undefined]>([
    ['asked, allowed, supported', { flags: flags({ askForConditionalCreate: true }) }, true, undefined],
    ['not asked', {}, false, undefined],
    ['asked, not allowed', { flags: flags({ askForConditionalCreate: true }), history: { ...NO_HISTORY, defaultCooldown: true } }, false, 'append-not-allowed'],
    ['asked, unsupported', { flags: flags({ askForConditionalCreate: true }), capabilities: readClientCapabilities(client({ uvpaAvailable: true })) }, false, 'conditional-create-unsupported'],
    ['asked, cooling down', { flags: flags({ askForConditionalCreate: true }), history: { ...NO_HISTORY, conditionalCreateCooldown: true } }, false, 'conditional-create-cooldown'],
  ])('conditional: %s', (_name, overrides, conditional, skipped) => {
    const { decision } = decideAppend(input(overrides));
    expect(decision.conditional).toBe(conditional);
    expect(decision.customData.conditionalSkipped).toBe(skipped);
  });

  it.each([
    ['allow', true],
    [' ALLOW ', true],
    ['true', true],
    ['', false],
    ['deny', false],
    ['maybe', false],
    [undefined, false],
  ])('inAppAppendAllowed(%j) = %s', (value, expected) => {
    expect(inAppAppendAllowed(value)).toBe(expected);
  });
});

describe('decideLogin', () => {
  const hybrid = readClientCapabilities(client({ uvpaAvailable: true, bluetoothAvailable: true }));
  const noHybrid = readClientCapabilities(client({ uvpaAvailable: true }));
  const input = (overrides: Partial<LoginDecisionInput> = {}): LoginDecisionInput => ({
    capabilities: hybrid,
    passkeys: [passkey()],
    envKey: 'env-a',
    osName: 'macOS',
    strategy: 'standard',
    ...overrides,
  });
  const elsewhere = passkey({ clientEnvKey: 'env-phone', sourceOS: 'Android', aaguid: GPM });

  it.each<[string, Partial<LoginDecisionInput>, boolean, string, boolean, boolean]>([
    ['no passkeys: login not allowed', { passkeys: [] }, false, LOGIN_TAGS.userNoPasskeys, false, false],
    ['a passkey from this env', {}, true, LOGIN_TAGS.platformHighConfidence, false, true],
    ['passkeys only on another platform, client has hybrid', { passkeys: [elsewhere] }, true, LOGIN_TAGS.crossPlatformHighConfidence, true, false],
    ['passkeys only on another platform, client lacks hybrid', { passkeys: [elsewhere], capabilities: noHybrid }, true, LOGIN_TAGS.crossPlatformHighConfidence, false, false],
    ['maximize: candidate even without a hybrid signal', { passkeys: [elsewhere], capabilities: noHybrid, strategy: 'maximize' }, true, LOGIN_TAGS.crossPlatformHighConfidence, true, false],
    ['minimize: never a candidate', { passkeys: [elsewhere], strategy: 'minimize' }, true, LOGIN_TAGS.crossPlatformHighConfidence, false, false],
    ['maximize with a local passkey: not a candidate', { strategy: 'maximize' }, true, LOGIN_TAGS.platformHighConfidence, false, true],
    ['synced from the same platform family (iPhone → Mac)', { passkeys: [passkey({ clientEnvKey: 'env-iphone', sourceOS: 'iOS' })] }, true, LOGIN_TAGS.syncedMediumConfidence, false, false],
    ['only security keys', { passkeys: [securityKey(), securityKey({ id: 'cre-sk2', transports: ['ble'] })] }, true, LOGIN_TAGS.securityKeysOnly, false, false],
    ['security key registered in this env is not a local passkey', { passkeys: [securityKey({ clientEnvKey: 'env-a' })] }, true, LOGIN_TAGS.securityKeysOnly, false, false],
    ['security key plus a platform passkey elsewhere', { passkeys: [securityKey(), elsewhere] }, true, LOGIN_TAGS.crossPlatformHighConfidence, true, false],
    ['security key plus a passkey here', { passkeys: [securityKey(), passkey()] }, true, LOGIN_TAGS.platformHighConfidence, false, true],
  ])('%s', (_name, overrides, allow, tag, cda, preferLocal) => {
    const { loginAllow, decision } = decideLogin(input(overrides));
    expect({ loginAllow, tag: decision.tag, cda: decision.isCDACandidate, preferLocal: decision.preferImmediatelyAvailable, experiments: decision.experiments }).toEqual({
      loginAllow: allow,
      tag,
      cda,
      preferLocal,
      experiments: [],
    });
  });
});
