import type { ConnectTokenStore } from '../store/connectTokens.js';

export interface ConnectTokenDeps {
  connectTokens: ConnectTokenStore;
  now: () => Date;
}
