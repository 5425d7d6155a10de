/** The local stack's processes and their environment; shared by `npm start` and the end-to-end tests. */
import type { ProcessSpec } from './supervisor.js';

export interface StackPorts {
  ceremony: number;
  challenge: number;
  connect: number;
  frontend: number;
  backend: number;
}

export const DEFAULT_PORTS: StackPorts = { ceremony: 7101, challenge: 7102, connect: 7103, frontend: 8080, backend: 8081 };

export interface StackEnv {
  mongodbUri: string;
  masterKey: string;
  ports: StackPorts;
  /** Public URLs stored on new projects ("{projectID}" is replaced by the project ID). */
  frontendApiUrl: string;
  backendApiUrl: string;
  logLevel?: string;
}

async function httpReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    return res.status === 200;
  } catch {
    return false;
  }
}

const node = (entry: string) => ({ command: process.execPath, args: ['--import', 'tsx', entry] });

/** Services first (connect, challenge, ceremony), then the gateway in front of them. */
export function stackProcesses(env: StackEnv): ProcessSpec[] {
  const p = env.ports;
  const common = { MONGODB_URI: env.mongodbUri, MASTER_KEY: env.masterKey, LOG_LEVEL: env.logLevel ?? 'info', HOST: '127.0.0.1' };
  const urls = {
    CEREMONY_URL: `http://127.0.0.1:${p.ceremony}`,
    CHALLENGE_URL: `http://127.0.0.1:${p.challenge}`,
    CONNECT_URL: `http://127.0.0.1:${p.connect}`,
  };
  return [
    {
      name: 'connect',
      ...node('services/connect/src/main.ts'),
      env: { ...common, ...urls, PORT: String(p.connect), FRONTEND_API_URL: env.frontendApiUrl, BACKEND_API_URL: env.backendApiUrl },
      ready: () => httpReady(`${urls.CONNECT_URL}/readyz`),
    },
    {
      name: 'challenge',
      ...node('services/challenge/src/main.ts'),
      env: { ...common, ...urls, PORT: String(p.challenge) },
      ready: () => httpReady(`${urls.CHALLENGE_URL}/readyz`),
    },
    {
      name: 'ceremony',
      ...node('services/ceremony/src/main.ts'),
      env: { ...common, ...urls, PORT: String(p.ceremony) },
      ready: () => httpReady(`${urls.CEREMONY_URL}/readyz`),
    },
    {
      name: 'gateway',
      ...node('gateway/src/main.ts'),
      env: { ...urls, LOG_LEVEL: common.LOG_LEVEL, HOST: '127.0.0.1', FRONTEND_PORT: String(p.frontend), BACKEND_PORT: String(p.backend) },
      ready: () => httpReady(`http://127.0.0.1:${p.frontend}/readyz`),
    },
  ];
}
