/**
 * Browser page script for the connect-react drop-in test: renders one component of the published
 * `@corbado/connect-react` 0.2.4-alpha.0 (with the `@corbado/web-core` 2.18.0 it ships with),
 * unchanged, inside its CorbadoConnectProvider, as an application would. The query string names
 * the component (`component`: append, login or passkey-list), the project (`projectId`) and the
 * frontendApiUrlSuffix (the TLS front of npm start, see ../startTlsFront.ts). Connect tokens come from
 * `window.connectToken(type)`, which the test exposes: it plays the application's server and
 * creates them with the backend API. Every callback the component makes is recorded in
 * `window.connectEvents`, so the test can wait for them. Bundled by ../sdkPage.ts.
 */
import { CorbadoConnectAppend, CorbadoConnectLogin, CorbadoConnectPasskeyList, CorbadoConnectProvider } from '@corbado/connect-react';
import { createElement, type ReactElement } from 'react';
import { createRoot } from 'react-dom/client';

export interface ConnectEvent {
  name: string;
  args: unknown[];
}

declare global {
  interface Window {
    /** Exposed by the test: a connect token's secret, created by "the application's server". */
    connectToken(type: string): Promise<string>;
    connectEvents: ConnectEvent[];
    connectReactReady: boolean;
  }
}

const params = new URLSearchParams(location.search);
const projectId = params.get('projectId') ?? '';
const frontendApiUrlSuffix = params.get('frontendApiUrlSuffix') ?? '';
const component = params.get('component') ?? '';

window.connectEvents = [];
/** A callback that records its call (arguments as JSON can carry them) and resolves. */
const record =
  (name: string) =>
  async (...args: unknown[]): Promise<void> => {
    window.connectEvents.push({ name, args: JSON.parse(JSON.stringify(args)) as unknown[] });
  };

function render(): ReactElement | null {
  switch (component) {
    case 'append':
      return createElement(CorbadoConnectAppend, {
        appendTokenProvider: () => window.connectToken('passkey-append'),
        onSkip: record('onSkip'),
        onComplete: record('onComplete'),
        onError: record('onError'),
      });
    case 'login':
      return createElement(CorbadoConnectLogin, {
        onFallback: record('onFallback'),
        onComplete: record('onComplete'),
        onError: record('onError'),
        onLoaded: record('onLoaded'),
        onLoginStart: record('onLoginStart'),
        onConditionalLoginStart: record('onConditionalLoginStart'),
      });
    case 'passkey-list':
      return createElement(CorbadoConnectPasskeyList, {
        connectTokenProvider: (type: string) => window.connectToken(type),
      });
    default:
      return null;
  }
}

const container = document.createElement('div');
container.id = 'connect-root';
document.body.appendChild(container);
createRoot(container).render(createElement(CorbadoConnectProvider, { projectId, frontendApiUrlSuffix, isDebug: true }, render()));
window.connectReactReady = true;
