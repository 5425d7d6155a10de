/**
 * Refuses to use the local CA's key file unless it is a regular file of the current user that no
 * one else may read or write (mode 0600 or stricter).
 *
 * Refused rather than fixed: a key that others could read may already have been copied, and
 * chmod cannot take a copy back. Only the developer knows whether that could have happened
 * (a shared machine, a checkout on a shared disk), so the error says both ways out: tighten the
 * mode if nobody else could read it, or delete the directory so that a new CA (to be trusted
 * again) replaces the old one. A key owned by another user (say from one `sudo npm start`) is
 * refused for the same reason: that user controls it.
 *
 * Windows has no POSIX modes or owners in stat(), so nothing is checked there.
 */
import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';

/** `uid`: the current user (a parameter so that tests can be someone else). */
export function checkCaKeyFile(keyFile: string, uid = process.getuid?.()): void {
  if (process.platform === 'win32' || uid === undefined) return;
  const stat = lstatSync(keyFile);
  const renew = `delete ${dirname(keyFile)} to make a new local CA (and trust the new one)`;
  if (!stat.isFile()) throw new Error(`the local CA's key ${keyFile} is not a regular file (a symbolic link?): ${renew}`);
  if (stat.uid !== uid) {
    throw new Error(`the local CA's key ${keyFile} belongs to user ${stat.uid}, not to you (user ${uid}), so that user controls the CA (was it made by \`sudo npm start\`?): ${renew}, or \`sudo chown ${uid} ${keyFile}\` if the CA is yours`);
  }
  if ((stat.mode & 0o077) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
    throw new Error(
      `the local CA's key ${keyFile} has mode ${mode}: others on this machine could read or change it, and whoever has a copy can issue certificates your browser trusts for localhost names: ${renew}, or \`chmod 600 ${keyFile}\` if nobody else could have read it`,
    );
  }
}
