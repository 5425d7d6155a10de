/** The one HTTP call SMS providers make: a POST with a deadline, where any non-2xx answer is an error. */

export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Names the provider in error messages ("SMS webhook", "Twilio"). */
  provider: string;
  /** Turns an error response body into a short explanation; defaults to its first 200 characters. */
  explain?: (body: string) => string;
}

export async function postWithTimeout(url: string, options: PostOptions): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: options.headers,
      body: options.body,
      signal: AbortSignal.timeout(options.timeoutMs),
      // A redirect would re-send a signed or authenticated request to a place nobody configured.
      redirect: 'error',
    });
  } catch (err) {
    const e = err as Error;
    const reason = e.name === 'TimeoutError' ? `no answer within ${options.timeoutMs} ms` : ((e.cause as Error | undefined)?.message ?? e.message);
    throw new Error(`${options.provider} request to ${new URL(url).origin} failed: ${reason}`, { cause: err });
  }
  if (res.ok) return res;
  const text = await res.text().catch(() => '');
  const explanation = (options.explain ?? ((b: string) => b.slice(0, 200)))(text);
  throw new Error(`${options.provider} answered HTTP ${res.status}${explanation ? `: ${explanation}` : ''}`);
}
