/**
 * `/`: passkey-first sign-up and login with the frontend API's auth flow. Every answer is a Block
 * response; the page shows the block it names (passkey, code, done) and calls the step for what
 * the user does. Passkey autofill (conditional UI) runs on its own process from page load, so
 * picking a passkey in the email field signs in without typing.
 */
import { startAuthentication, startRegistration, WebAuthnAbortService } from '@simplewebauthn/browser';
import { PasskeyAutofill } from './autofill.js';
import { abortedByPage, busy, byId, clientInformation, config, describeError, frontendApi, messages, rememberClientEnv, sentence, show } from './common.js';
import { hasSession, saveSession } from './session.js';

interface RequestError {
  code: string;
  message: string;
}

interface Block {
  block: string;
  authType: string;
  data: Record<string, any>;
  alternatives: Block[];
  error?: RequestError;
}

interface BlockResponse {
  blockBody: Block;
  newProcess?: { token: string; expiresAt: number };
}

const ui = messages('status', 'error');
const startView = byId('start-view');
const passkeyStep = byId('passkey-step');
const otpForm = byId<HTMLFormElement>('otp-form');
const startOverRow = byId('start-over-row');
const identifierInput = byId<HTMLInputElement>('identifier');

/** The flow the user started with a button: its process token and the block it is at. */
let flow: { token: string; block: Block } | null = null;
/** After a failed passkey attempt, the next one asks for fresh options. */
let needFreshOptions = false;

const errorText = (e: RequestError) => `${sentence(e.message)} (${e.code})`;

/** A new process (process/init) with this browser's description; answers its first block. */
async function initProcess(): Promise<{ token: string; block: Block }> {
  const r = await frontendApi<{ token: string; newClientEnvHandle?: string; processResponse: BlockResponse }>('/v2/auth/process/init', {
    body: { clientInformation: await clientInformation() },
  });
  rememberClientEnv(r);
  return { token: r.token, block: r.processResponse.blockBody };
}

/** One step of the current flow; answers the next block. */
async function step(path: string, body: unknown = {}): Promise<Block> {
  if (!flow) throw new Error('no sign-in is in progress; start over');
  const r = await frontendApi<BlockResponse>(path, { body, process: flow.token });
  if (r.newProcess) flow.token = r.newProcess.token;
  flow.block = r.blockBody;
  return r.blockBody;
}

// --- Passkey autofill (conditional UI) ---------------------------------------------------------

/** Autofill on the email field, each request on its own process (process/init answers the conditionalUIChallenge). */
const autofill = new PasskeyAutofill<{ token: string; block: Block; rpId: string }>({
  field: identifierInput,
  async request() {
    const { token, block } = await initProcess();
    const challenge = block.data.conditionalUIChallenge as string | undefined;
    // None when the browser reports no conditional mediation; moot when the user started a flow meanwhile.
    if (!challenge || flow) return null;
    const options = JSON.parse(challenge).publicKey;
    return { options, context: { token, block, rpId: options.rpId as string } };
  },
  async finish(response, { token, block, rpId }) {
    ui.clearError();
    ui.status('Signing you in with your passkey…');
    flow = { token, block };
    try {
      const next = await step('/v2/auth/passkey/mediation/finish', { signedChallenge: JSON.stringify(response) });
      if (next.block === 'login-init' && next.error?.code === 'credential_deleted') {
        // Tell the browser to forget the passkey the server no longer has (where supported).
        await (PublicKeyCredential as any).signalUnknownCredential?.({ rpId, credentialId: response.id })?.catch(() => undefined);
        throw new Error('that passkey no longer exists on the server (it was deleted)');
      }
      await showBlock(next);
    } catch (err) {
      flow = null;
      showView('start');
      ui.status('');
      ui.error(`${describeError(err)} You can type your email address and log in.`);
    }
  },
  onError: (err) => ui.error(err),
});
const startAutofill = () => autofill.start().catch((err) => ui.error(err));

// --- Showing blocks ----------------------------------------------------------------------------

type View = 'start' | 'passkey' | 'code';

function showView(view: View): void {
  show(startView, view === 'start');
  show(passkeyStep, view === 'passkey');
  show(otpForm, view === 'code');
  show(startOverRow, view !== 'start');
}

/** Shows what a block asks for; `auto` runs its passkey ceremony right away (the user just asked for it). */
async function showBlock(block: Block, opts: { auto?: boolean } = {}): Promise<void> {
  switch (block.block) {
    case 'login-init':
    case 'signup-init': {
      showView('start');
      const problems = [
        ...(block.data.identifiers ?? []).filter((i: { error?: RequestError }) => i.error).map((i: { identifier: string; error: RequestError }) => `${i.identifier || 'Email'}: ${errorText(i.error)}`),
        ...(block.data.fullName?.error ? [`Name: ${errorText(block.data.fullName.error)}`] : []),
        ...(block.error ? [errorText(block.error)] : []),
      ];
      ui.status('');
      if (problems.length > 0) ui.error(problems.join(' '));
      flow = null;
      if (!autofill.waiting) void startAutofill();
      return;
    }
    case 'passkey-append':
    case 'passkey-verify':
      showPasskeyStep(block);
      needFreshOptions = false;
      if (block.error) ui.error(errorText(block.error));
      if (opts.auto) await (block.block === 'passkey-append' ? createPasskey() : usePasskey());
      return;
    case 'email-verify':
    case 'phone-verify':
      showCodeStep(block);
      return;
    case 'passkey-appended':
      ui.status('Passkey created. Finishing…');
      return showBlock(await step('/v2/auth/process/complete'));
    case 'completed':
      saveSession(block.data.shortSession, block.data.longSession);
      ui.status('You are signed in. Opening your account…');
      location.assign('/account');
      return;
    default:
      throw new Error(`the service asked for a step this demo does not show (${block.block})`);
  }
}

function codeAlternative(block: Block): Block | undefined {
  return block.alternatives.find((a) => a.block === 'email-verify' || a.block === 'phone-verify');
}

function showPasskeyStep(block: Block): void {
  const append = block.block === 'passkey-append';
  const who = block.data.identifierValue as string;
  const alternative = codeAlternative(block);
  const title = byId('passkey-step-title');
  if (append && alternative) {
    title.textContent = 'Create your passkey';
    byId('passkey-step-text').textContent = `Your account ${who} is almost ready. Create a passkey to sign in with your fingerprint, face or screen lock, now and next time.`;
  } else if (append) {
    title.textContent = 'Add a passkey?';
    byId('passkey-step-text').textContent = `You are verified as ${who}. Create a passkey to sign in faster next time, or skip this for now.`;
  } else {
    title.textContent = 'Use your passkey';
    byId('passkey-step-text').textContent = `Sign in as ${who} with your passkey.`;
  }
  show(byId('create-passkey'), append);
  show(byId('use-passkey'), !append);
  // Skipping is offered once the user is proven (after a code); before that, the code is the alternative.
  show(byId('skip-passkey'), append && !alternative);
  show(byId('use-code'), Boolean(alternative));
  byId('use-code').textContent = alternative?.block === 'phone-verify' ? 'Text me a code instead' : 'Email me a code instead';
  showView('passkey');
  ui.status('');
}

function showCodeStep(block: Block): void {
  const phone = block.block === 'phone-verify';
  byId('otp-title').textContent = phone ? 'Enter the code from your text message' : 'Enter the code from your email';
  byId('otp-text').textContent = `We sent a 6-digit code to ${block.data.identifier}.`;
  const inbox = config.mailInboxUrl;
  show(byId('mail-banner'), Boolean(inbox) && !phone);
  if (inbox) byId<HTMLAnchorElement>('mail-link').href = inbox;
  byId<HTMLInputElement>('otp-code').value = '';
  showView('code');
  ui.status(block.error ? '' : 'Code sent.');
  if (block.error) ui.error(errorText(block.error));
  byId('otp-code').focus();
}

// --- What the user does ------------------------------------------------------------------------

async function createPasskey(): Promise<void> {
  let block = flow!.block;
  if (needFreshOptions) block = await step('/v2/auth/passkey/append/start', { clientInformation: await clientInformation() });
  ui.status('Follow your browser’s prompt to create a passkey…');
  let response;
  try {
    response = await startRegistration({ optionsJSON: JSON.parse(block.data.challenge).publicKey });
  } catch (err) {
    needFreshOptions = true;
    ui.status('');
    // The page ended the prompt itself (the user picked the code or started over): nothing failed.
    if (abortedByPage(err)) return;
    ui.error(`No passkey was created: ${describeError(err)}`);
    return;
  }
  ui.status('Saving your passkey…');
  needFreshOptions = true; // whatever the finish answers, these options are used up
  await showBlock(await step('/v2/auth/passkey/append/finish', { signedChallenge: JSON.stringify(response) }));
}

async function usePasskey(): Promise<void> {
  let block = flow!.block;
  if (needFreshOptions) block = await step('/v2/auth/passkey/login/start', { clientInformation: await clientInformation() });
  ui.status('Follow your browser’s prompt to use your passkey…');
  let response;
  try {
    response = await startAuthentication({ optionsJSON: JSON.parse(block.data.challenge).publicKey });
  } catch (err) {
    needFreshOptions = true;
    ui.status('');
    // The page ended the prompt itself (the user picked the code or started over): nothing failed.
    if (abortedByPage(err)) return;
    ui.error(`You were not signed in: ${describeError(err)}`);
    return;
  }
  ui.status('Checking your passkey…');
  needFreshOptions = true;
  await showBlock(await step('/v2/auth/passkey/login/finish', { signedChallenge: JSON.stringify(response) }));
}

async function sendCode(block: Block): Promise<void> {
  const phone = block.block === 'phone-verify';
  ui.status(phone ? 'Sending a code by text message…' : 'Sending a code by email…');
  await showBlock(await step('/v2/auth/identifier/verify/start', { identifierType: phone ? 'phone' : 'email', verificationType: phone ? 'phone-otp' : 'email-otp' }));
}

async function startOver(): Promise<void> {
  autofill.stop();
  WebAuthnAbortService.cancelCeremony();
  flow = null;
  showView('start');
  await startAutofill();
}

/** Runs a button's action with the error, if any, shown to the user. */
function action(buttonId: string, run: () => Promise<void>): (event?: Event) => void {
  const button = byId<HTMLButtonElement>(buttonId);
  return (event) => {
    event?.preventDefault();
    ui.clearError();
    busy(button, run).catch((err) => {
      ui.status('');
      ui.error(err);
    });
  };
}

byId('login-form').addEventListener(
  'submit',
  action('login-button', async () => {
    const identifier = identifierInput.value.trim();
    if (!identifier) {
      ui.error('Enter your email address, or pick your passkey from the suggestions of the field.');
      identifierInput.focus();
      return;
    }
    // Chromium allows one WebAuthn request at a time: end the autofill one before the modal one.
    autofill.stop();
    ui.status('Looking up your account…');
    flow = await initProcess();
    await showBlock(await step('/v2/auth/login/init', { identifierValue: identifier, isPhone: false }), { auto: true });
  }),
);

byId('signup-form').addEventListener(
  'submit',
  action('signup-button', async () => {
    const email = byId<HTMLInputElement>('signup-email').value.trim();
    const fullName = byId<HTMLInputElement>('signup-name').value.trim();
    if (!email) {
      ui.error('Enter your email address to create an account.');
      byId('signup-email').focus();
      return;
    }
    autofill.stop();
    ui.status('Creating your account…');
    flow = await initProcess();
    const block = await step('/v2/auth/signup/init', { identifiers: [{ type: 'email', identifier: email }], ...(fullName ? { fullName } : {}) });
    await showBlock(block, { auto: true });
  }),
);

byId('create-passkey').addEventListener('click', action('create-passkey', createPasskey));
byId('use-passkey').addEventListener('click', action('use-passkey', usePasskey));
byId('skip-passkey').addEventListener(
  'click',
  action('skip-passkey', async () => {
    ui.status('Skipping the passkey…');
    await showBlock(await step('/v2/auth/block/skip'));
  }),
);
byId('use-code').addEventListener(
  'click',
  action('use-code', async () => {
    const alternative = flow && codeAlternative(flow.block);
    if (!alternative) throw new Error('no code can be sent for this account');
    WebAuthnAbortService.cancelCeremony();
    await sendCode(alternative);
  }),
);
byId('resend-code').addEventListener(
  'click',
  action('resend-code', async () => {
    if (!flow) throw new Error('no sign-in is in progress; start over');
    await sendCode(flow.block);
  }),
);
otpForm.addEventListener(
  'submit',
  action('otp-submit', async () => {
    const input = byId<HTMLInputElement>('otp-code');
    const code = input.value.trim();
    if (!/^[0-9]{6}$/.test(code)) {
      ui.error('Enter the 6 digits of the code.');
      input.focus();
      return;
    }
    const block = flow!.block;
    const phone = block.block === 'phone-verify';
    ui.status('Checking the code…');
    await showBlock(
      await step('/v2/auth/identifier/verify/finish', {
        code,
        identifierType: phone ? 'phone' : 'email',
        verificationType: block.data.verificationMethod ?? (phone ? 'phone-otp' : 'email-otp'),
        isNewDevice: false,
      }),
    );
  }),
);
byId('start-over').addEventListener(
  'click',
  action('start-over', async () => {
    ui.status('');
    await startOver();
  }),
);

// Page load: the start view, with passkey autofill on the email field.
showView('start');
ui.status(hasSession() ? 'You are already signed in; your account page is under “Account”.' : '');
void startAutofill();
