/**
 * The TLS front as a process of `npm start` (processes.ts tlsFrontProcess): HTTPS for every
 * `*.localhost` name on TLS_FRONT_PORT, relayed to the gateway's frontend listener on
 * GATEWAY_HOST:GATEWAY_PORT. The CA lives in TLS_DIR (created on first start).
 */
import { loadLocalCertificateAuthority } from './loadLocalCertificateAuthority.js';
import { serveTlsFront } from './serveTlsFront.js';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const port = Number(env('TLS_FRONT_PORT', '8443'));
const gatewayPort = Number(env('GATEWAY_PORT'));
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`TLS_FRONT_PORT must be a port number, not "${process.env.TLS_FRONT_PORT}"`);
if (!Number.isInteger(gatewayPort) || gatewayPort < 1 || gatewayPort > 65535) throw new Error(`GATEWAY_PORT must be a port number, not "${process.env.GATEWAY_PORT}"`);

const ca = await loadLocalCertificateAuthority(env('TLS_DIR'));
const front = await serveTlsFront({
  ca,
  port,
  hosts: ['127.0.0.1', '::1'],
  target: { host: env('GATEWAY_HOST', '127.0.0.1'), port: gatewayPort },
  log: (line) => process.stderr.write(`tls-front: ${line}\n`),
});
if (ca.replacedBecause) {
  process.stdout.write(
    `replaced the local certificate authority ${ca.certificateFile} (${ca.replacedBecause}): trust the new one again and remove the old one from your trust stores (docs/web-sdks.md, "Trying it locally with npm start")\n`,
  );
} else if (ca.created) {
  process.stdout.write(`created the local certificate authority ${ca.certificateFile}: trust it once (docs/web-sdks.md, "Trying it locally with npm start")\n`);
}
// start.ts and the tests wait for this line.
process.stdout.write(`listening on https://localhost:${front.port} (CA ${ca.certificateFile})\n`);

const stop = () => void front.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
