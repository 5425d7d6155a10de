/**
 * The demo app's own login for the connect page: an in-memory table of users with scrypt password
 * hashes (node:crypto). Nothing is written to disk: restarting the demo forgets every user.
 * Anyone may register with any non-empty password; this stands in for an application's existing
 * login, which the connect flows add passkeys to.
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

const KEY_LENGTH = 32;
const MAX_USERS = 10_000;

interface PasswordUser {
  email: string;
  salt: Buffer;
  hash: Buffer;
}

export class PasswordError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Lower-cased and trimmed, as the auth service normalizes email identifiers. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export class PasswordUsers {
  private readonly users = new Map<string, PasswordUser>();
  /** Compared against when the email is unknown, so a wrong email costs as much as a wrong password. */
  private readonly dummy = { salt: randomBytes(16), hash: randomBytes(KEY_LENGTH) };

  async register(emailInput: unknown, password: unknown): Promise<{ email: string }> {
    const email = checkEmail(emailInput);
    if (typeof password !== 'string' || password.length === 0) throw new PasswordError(400, 'password_missing', 'Enter a password (any password will do in this demo).');
    if (password.length > 1024) throw new PasswordError(400, 'password_too_long', 'Use a password of at most 1024 characters.');
    if (this.users.has(email)) throw new PasswordError(409, 'email_taken', `${email} is already registered here; sign in instead.`);
    if (this.users.size >= MAX_USERS) throw new PasswordError(503, 'demo_full', 'The demo has too many users; restart it to start over.');
    const salt = randomBytes(16);
    this.users.set(email, { email, salt, hash: await scryptAsync(password, salt, KEY_LENGTH) });
    return { email };
  }

  async login(emailInput: unknown, password: unknown): Promise<{ email: string }> {
    const email = typeof emailInput === 'string' ? normalizeEmail(emailInput) : '';
    const user = this.users.get(email);
    const candidate = await scryptAsync(typeof password === 'string' ? password : '', (user ?? this.dummy).salt, KEY_LENGTH);
    if (!user || !timingSafeEqual(candidate, user.hash)) throw new PasswordError(401, 'wrong_credentials', 'Wrong email address or password.');
    return { email };
  }

  has(email: string): boolean {
    return this.users.has(normalizeEmail(email));
  }
}

function checkEmail(input: unknown): string {
  const email = typeof input === 'string' ? normalizeEmail(input) : '';
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) throw new PasswordError(400, 'email_invalid', 'Enter a valid email address, such as ada@example.com.');
  return email;
}
