/**
 * Passkey autofill (conditional UI) on a page's login field: one request at a time, each on a new
 * process of the page's flow. Its challenge lives 5 minutes, so a request nobody answered is renewed
 * before. A typed login or a sign-up stops it (Chromium allows one WebAuthn request at a time); the
 * page starts it again when it is back at the start, never right after a failed autofill login, so
 * a passkey the browser offers automatically cannot loop.
 *
 * Shared by the sign-up/login page and the connect page: only how a request is made and finished
 * differs (their `request` and `finish`).
 */
import { browserSupportsWebAuthnAutofill, startAuthentication, WebAuthnAbortService, type AuthenticationResponseJSON, type PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import { isCancelled } from './common.js';

/** A new autofill request: the assertion options and what `finish` needs to complete it (its process). */
export interface AutofillRequest<T> {
  options: PublicKeyCredentialRequestOptionsJSON;
  context: T;
}

export interface AutofillOptions<T> {
  /** The login field (autocomplete="username webauthn"). */
  field: HTMLElement;
  /** Starts a process for a new request; null when there is none to make (no conditional UI offered, or the page moved on). */
  request(): Promise<AutofillRequest<T> | null>;
  /** The user picked a passkey: complete the login. */
  finish(response: AuthenticationResponseJSON, context: T): Promise<void>;
  /** Shows a failure of a request (a cancelled one is no failure). */
  onError(err: unknown): void;
}

const RENEW_MS = 4 * 60_000;

export class PasskeyAutofill<T> {
  private current: { timer: number } | null = null;
  /** Bumped whenever autofill is stopped, so a start still waiting for its process gives up. */
  private generation = 0;

  constructor(private readonly o: AutofillOptions<T>) {}

  /** True while a request waits for the user. */
  get waiting(): boolean {
    return this.current !== null;
  }

  /** Starts a new request (ending a waiting one); returns once it waits for the user (it does not block). */
  async start(): Promise<void> {
    if (!(await browserSupportsWebAuthnAutofill())) return;
    this.stop();
    const generation = this.generation;
    const request = await this.o.request();
    if (!request || generation !== this.generation) return;
    const current = (this.current = { timer: window.setTimeout(() => void this.start().catch((err) => this.o.onError(err)), RENEW_MS) });
    void this.wait(current, request);
  }

  /** Cancels a waiting request (and any other WebAuthn prompt of the page). */
  stop(): void {
    this.generation++;
    if (!this.current) return;
    this.forget();
    WebAuthnAbortService.cancelCeremony();
  }

  private async wait(current: { timer: number }, request: AutofillRequest<T>): Promise<void> {
    let response: AuthenticationResponseJSON;
    const unmark = markWaiting(this.o.field);
    try {
      response = await startAuthentication({ optionsJSON: request.options, useBrowserAutofill: true });
    } catch (err) {
      // Cancelled: an explicit passkey prompt replaced it, or it was renewed.
      if (this.current === current) this.forget();
      if (!isCancelled(err)) this.o.onError(err);
      return;
    } finally {
      unmark();
    }
    if (this.current !== current) return;
    this.forget();
    await this.o.finish(response, request.context);
  }

  private forget(): void {
    if (!this.current) return;
    window.clearTimeout(this.current.timer);
    this.current = null;
  }
}

/**
 * Marks the field with data-autofill="waiting" while the request runs, so tests know when the
 * browser is waiting for the user. The mark is set a moment after the request starts
 * (simplewebauthn checks support before it calls the browser). Returns the function that removes it.
 */
function markWaiting(input: HTMLElement): () => void {
  const timer = window.setTimeout(() => (input.dataset.autofill = 'waiting'), 100);
  return () => {
    window.clearTimeout(timer);
    delete input.dataset.autofill;
  };
}
