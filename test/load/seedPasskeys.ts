/**
 * Seeds stored passkeys for the scale comparison, directly with the `mongodb` driver. The documents
 * are copies of what the services themselves wrote for one real registration through the API (the
 * template: user, WebAuthn user handle, credential, client environment and the registration's
 * events), with that user's identifiers, credential ID, handle, public key and client environment
 * swapped for fresh ones. So the seeded documents have exactly the services' collections, fields
 * and types, and follow any change to them without a change here.
 *
 * The public keys are real COSE keys made by the software authenticator; a pool of them is shared
 * across the seeded passkeys (each still has its own credential ID), and the bench keeps the
 * private keys, so any seeded user can log in for real.
 */
import { randomBytes } from 'node:crypto';
import { Binary, ObjectId, type Db, type Document } from 'mongodb';
import { SoftAuthenticator, type SoftCredential } from '../kit/softAuthenticator.js';
import { clientInformationFor, type PasskeyUser } from './registerPasskeyUser.js';

/** Collections a registration writes, and how to find the template user's documents in each. */
const TEMPLATE_QUERIES: Record<string, (projectId: string, userId: string) => Document> = {
  users: (projectId, userId) => ({ _id: userId, projectId }),
  webauthn_users: (projectId, userId) => ({ projectId, userId }),
  credentials: (projectId, userId) => ({ projectId, userId }),
  user_insights: (projectId, userId) => ({ projectId, userId }),
  ceremony_events: (projectId, userId) => ({ projectId, userId }),
};

const BATCH_USERS = 10_000;
const KEY_POOL = 64;

export interface Template {
  projectId: string;
  userId: string;
  credentialRecordId: string;
  credentialId: string;
  envKey: string;
  handle: Buffer;
  publicKey: Buffer;
  rpId: string;
  docs: Record<string, Document[]>;
}

/** Reads what the services stored for the template user (registered through the API just before). */
export async function readTemplate(db: Db, projectId: string, user: PasskeyUser, envKey: string): Promise<Template> {
  const docs: Record<string, Document[]> = {};
  for (const [collection, query] of Object.entries(TEMPLATE_QUERIES)) docs[collection] = await db.collection(collection).find(query(projectId, user.userID)).toArray();
  const credential = docs.credentials[0];
  const handle = docs.webauthn_users[0];
  if (docs.users.length !== 1 || docs.credentials.length !== 1 || docs.webauthn_users.length !== 1) {
    throw new Error(
      `the template registration left ${docs.users.length} user, ${docs.credentials.length} credential and ${docs.webauthn_users.length} handle documents (expected one each): the store layout changed`,
    );
  }
  return {
    projectId,
    userId: user.userID,
    credentialRecordId: credential._id as string,
    credentialId: credential.credentialId as string,
    envKey,
    handle: Buffer.from((handle.handle as Binary).buffer),
    publicKey: Buffer.from((credential.publicKey as Binary).buffer),
    rpId: user.credential.rpId,
    docs,
  };
}

interface Replacement {
  strings: [string, string][];
  binaries: [Buffer, Binary][];
}

/** A deep copy with the template's identifiers swapped; ObjectId _ids are dropped so the driver makes new ones, as for the services. */
function instantiate(value: unknown, r: Replacement, top = false): unknown {
  if (typeof value === 'string') {
    let out = value;
    for (const [from, to] of r.strings) if (out.includes(from)) out = out.split(from).join(to);
    return out;
  }
  if (value instanceof Binary) {
    const bytes = Buffer.from(value.buffer);
    for (const [from, to] of r.binaries) if (bytes.equals(from)) return to;
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => instantiate(v, r));
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (top && k === '_id' && v instanceof ObjectId) continue;
      out[instantiate(k, r) as string] = instantiate(v, r);
    }
    return out;
  }
  // Dates, numbers, booleans, ObjectIds below the top level: shared as they are.
  return value;
}

/** `prefix-` and 20 digits, first non-zero: the services' ID shape (runtime/ids.ts), made from one random read. */
function seedId(prefix: string): string {
  const bytes = randomBytes(20);
  let digits = String(1 + (bytes[0] % 9));
  for (let i = 1; i < 20; i++) digits += String(bytes[i] % 10);
  return `${prefix}-${digits}`;
}

export interface Seeder {
  /** Seeds users [from, to) of the sequence; returns the loginable users for the indexes in `keep`. */
  seed(from: number, to: number, keep: Set<number>): Promise<Map<number, PasskeyUser>>;
}

export function createSeeder(db: Db, template: Template, origin: string, tag: string): Seeder {
  // Real keys from the software authenticator; the options it needs beyond the key are irrelevant here.
  const auth = new SoftAuthenticator({ flags: { be: true } });
  const keys: SoftCredential[] = Array.from({ length: KEY_POOL }, () => auth.create({ challenge: 'seed', rpId: template.rpId, origin, userHandle: '' }).credential);
  const coseKeys = keys.map((k) => new Binary(Buffer.from(k.cosePublicKey)));
  return {
    async seed(from, to, keep) {
      const kept = new Map<number, PasskeyUser>();
      for (let start = from; start < to; start += BATCH_USERS) {
        const end = Math.min(to, start + BATCH_USERS);
        const batches: Record<string, Document[]> = Object.fromEntries(Object.keys(template.docs).map((c) => [c, []]));
        for (let i = start; i < end; i++) {
          const userId = seedId('usr');
          const credentialId = randomBytes(32).toString('base64url');
          const handle = randomBytes(32);
          const envKey = `bench-env-${tag}-seed-${i}`;
          const r: Replacement = {
            strings: [
              [template.userId, userId],
              [template.credentialRecordId, seedId('cre')],
              [template.credentialId, credentialId],
              [template.envKey, envKey],
              // Passkeys keep their user handle as base64url too.
              [template.handle.toString('base64url'), handle.toString('base64url')],
            ],
            binaries: [
              [template.handle, new Binary(handle)],
              [template.publicKey, coseKeys[i % KEY_POOL]],
            ],
          };
          for (const [collection, docs] of Object.entries(template.docs)) for (const d of docs) batches[collection].push(instantiate(d, r, true) as Document);
          if (keep.has(i)) {
            const key = keys[i % KEY_POOL];
            const credential: SoftCredential = { ...key, id: credentialId, counter: 0, userHandle: handle.toString('base64url'), rpId: template.rpId };
            kept.set(i, { userID: userId, auth, credential, clientInformation: clientInformationFor(envKey) });
          }
        }
        for (const [collection, docs] of Object.entries(batches)) if (docs.length) await db.collection(collection).insertMany(docs, { ordered: false });
      }
      return kept;
    },
  };
}
