/**
 * Runs the demo app from the environment: DEMO_PORT (default 3000), DEMO_PROJECT_FILE (default
 * .local/demo-project.json, written by `npm start`: the self-service project's credentials and,
 * under `connect`, the connect project's), MAIL_INBOX_URL (optional, the mail catcher),
 * WEB_SDK_URL_SUFFIX (optional, `localhost:8443` for the TLS front, used by the web-js page),
 * HOST (default 127.0.0.1). SIGINT/SIGTERM stop it.
 */
import { readFileSync } from 'node:fs';
import type { DemoProject } from './backendApi.js';
import { startDemo } from './server.js';

const port = Number(process.env.DEMO_PORT ?? 3000);
const projectFile = process.env.DEMO_PROJECT_FILE ?? '.local/demo-project.json';

let project: DemoProject & { connect?: DemoProject };
try {
  project = JSON.parse(readFileSync(projectFile, 'utf8')) as DemoProject & { connect?: DemoProject };
} catch (err) {
  console.error(`demo: cannot read the demo project from ${projectFile} (${(err as Error).message}). Run \`npm start\`, which creates it, or set DEMO_PROJECT_FILE.`);
  process.exit(1);
}
const KEYS = ['projectID', 'apiSecret', 'frontendApiUrl', 'backendApiUrl'] as const;
const problems: string[] = KEYS.filter((k) => typeof project[k] !== 'string' || !project[k]).map((k) => `${k} is missing in ${projectFile}`);
// The connect project (self-service off) for the connect and backend pages, beside the other's fields.
const connectProject = project.connect;
if (!connectProject || typeof connectProject !== 'object') problems.push(`connect (the connect project) is missing in ${projectFile}; \`npm start\` writes it`);
else problems.push(...KEYS.filter((k) => typeof connectProject[k] !== 'string' || !connectProject[k]).map((k) => `connect.${k} is missing in ${projectFile}`));
if (!Number.isInteger(port) || port < 0 || port > 65535) problems.push(`DEMO_PORT must be a port number, got ${process.env.DEMO_PORT}`);
if (problems.length > 0) {
  console.error(`demo: cannot start:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}

const demo = await startDemo({ port, host: process.env.HOST, project, connectProject: connectProject!, mailInboxUrl: process.env.MAIL_INBOX_URL || undefined, webSdkUrlSuffix: process.env.WEB_SDK_URL_SUFFIX || undefined, log: (line) => console.log(`demo: ${line}`) });
console.log(`demo listening on ${demo.url} (self-service project ${project.projectID}, connect project ${connectProject!.projectID})`);

const stop = () => {
  demo.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
