/**
 * A passkey credential document shaped like the ceremony service's (services/ceremony/src/store/
 * credentials.ts), about 600 bytes of BSON, so the store's measurements reflect the real hot
 * collection rather than toy documents.
 */
import { createHash } from 'node:crypto';
import { Binary, type IndexDescription } from 'mongodb';

/** Deterministic bytes per (seed, i), so runs are comparable and ids never collide. */
function bytesFor(seed: string, i: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let off = 0, n = 0; off < length; n++) off += createHash('sha256').update(`${seed}:${i}:${n}`).digest().copy(out, off);
  return out;
}

export function buildCredentialDocument(i: number, projectId: string, usersPerProject = 1000): Record<string, unknown> {
  const at = new Date(Date.UTC(2025, 0, 1) + i * 1000);
  const aaguid = bytesFor('aaguid', i % 8, 16).toString('hex');
  return {
    _id: `pk-${bytesFor('id', i, 12).toString('base64url')}`,
    projectId,
    userId: `usr-${(i % usersPerProject).toString().padStart(10, '0')}`,
    username: `user${i % usersPerProject}@example.com`,
    credentialId: bytesFor('cred', i, 32).toString('base64url'),
    publicKey: new Binary(bytesFor('key', i, 77)),
    algorithm: -7,
    counter: i % 100,
    transports: ['internal', 'hybrid'],
    aaguid: `${aaguid.slice(0, 8)}-${aaguid.slice(8, 12)}-${aaguid.slice(12, 16)}-${aaguid.slice(16, 20)}-${aaguid.slice(20)}`,
    backupEligible: true,
    backupState: i % 2 === 0,
    attestationFormat: 'none',
    createdAt: at,
    lastUsedAt: at,
    clientEnvKey: bytesFor('env', i % 50, 16).toString('hex'),
    sourceOS: 'macOS 15.1',
    sourceBrowser: 'Chrome 131',
    status: 'active',
    notificationRequested: false,
    name: `Passkey on Chrome ${i % 7}`,
  };
}

/** The credential collection's hot indexes, as the ceremony service creates them. */
export const CREDENTIAL_INDEXES: IndexDescription[] = [
  { key: { projectId: 1, credentialId: 1 }, name: 'projectId_1_credentialId_1', unique: true },
  { key: { projectId: 1, userId: 1 }, name: 'projectId_1_userId_1' },
];
