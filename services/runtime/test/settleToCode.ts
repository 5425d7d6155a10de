import { Code, ConnectError } from '@connectrpc/connect';

/** Waits for a call and says how it ended: 'ok', or the Connect code it failed with. */
export async function settleToCode(p: Promise<unknown>): Promise<Code | 'ok'> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return ConnectError.from(err).code;
  }
}
