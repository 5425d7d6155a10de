/**
 * The five scenarios as the closed loop runs them: what each virtual user prepares before the clock
 * starts, and the ceremony it repeats. The same definitions drive the stack and the baseline.
 */
import { performance } from 'node:perf_hooks';
import type { ScenarioName } from './parseBenchArgs.js';
import { performChallenge } from './performChallenge.js';
import { performConnectLogin, type ConnectLoginUser } from './performConnectLogin.js';
import { performLogin } from './performLogin.js';
import { performMediation } from './performMediation.js';
import { createUser, registerPasskeyUser, type BenchTarget, type PasskeyUser } from './registerPasskeyUser.js';
import { expectOk } from './createJsonClient.js';

export interface ScenarioPlan<S> {
  prepare(target: BenchTarget): Promise<S[]>;
  iterate(target: BenchTarget, state: S, vu: number, iteration: number): Promise<void>;
  before?(target: BenchTarget, state: S, vu: number): Promise<void>;
  /** Untimed helper requests made inside the window (their store operations and RPCs are in the per-ceremony figures). */
  helperCallsBetween?(from: number, to: number): number;
}

/** The challenge service allows this many B1 per user in ten minutes (its default creation limit). */
const CHALLENGES_PER_USER = 5;
/**
 * Users prepared per virtual user and second of the run: enough for 12 challenges per second per
 * virtual user (384/s at 32), above the 300/s target, so the measured window rarely needs more.
 */
const CHALLENGE_USERS_PER_VU_SECOND = 12 / CHALLENGES_PER_USER;

interface ChallengeState {
  users: string[];
  current: string | null;
  uses: number;
}

export function defineScenario(name: ScenarioName, opts: { vus: number; runSeconds: number; tag: string }): ScenarioPlan<any> {
  const vuIndexes = Array.from({ length: opts.vus }, (_, i) => i);
  const passkeyUsers = (kind: string) => (target: BenchTarget) => Promise.all(vuIndexes.map((vu) => registerPasskeyUser(target, `${opts.tag}-${kind}-${vu}`)));
  switch (name) {
    case 'login': {
      const plan: ScenarioPlan<PasskeyUser> = {
        prepare: passkeyUsers('login'),
        iterate: (target, user, vu) => performLogin(target, user, `bench-login-${vu}`),
      };
      return plan;
    }
    case 'mediation': {
      const plan: ScenarioPlan<PasskeyUser> = {
        prepare: passkeyUsers('mediation'),
        iterate: (target, user, vu) => performMediation(target, user, `bench-mediation-${vu}`),
      };
      return plan;
    }
    case 'connect-login': {
      // The application's user with a passkey and a claimed (application-given) email address, by
      // which the page's login field finds the user (connect logins find users by claimed identifiers only).
      const plan: ScenarioPlan<ConnectLoginUser> = {
        prepare: (target) =>
          Promise.all(
            vuIndexes.map(async (vu) => {
              const name = `${opts.tag}-connect-${vu}`;
              const user = await registerPasskeyUser(target, name);
              const identifier = `${name}@bench.example`;
              await expectOk('create identifier', target.client.call('POST', `/v2/users/${user.userID}/identifiers`, { identifierType: 'email', identifierValue: identifier, status: 'verified' }));
              return { ...user, identifier };
            }),
          ),
        iterate: (target, user, vu) => performConnectLogin(target, user, `bench-visitor-${vu}`),
      };
      return plan;
    }
    case 'register': {
      const plan: ScenarioPlan<number> = {
        prepare: async () => vuIndexes,
        iterate: (target, vu, _vu, i) => registerPasskeyUser(target, `${opts.tag}-register-${vu}-${i}`).then(() => undefined),
      };
      return plan;
    }
    case 'challenge': {
      // Fresh users keep the per-user creation limit out of the way (many users each get a code, as in
      // production); each user has its own identifier for the per-identifier limit.
      const created: number[] = [];
      const perVu = Math.ceil(opts.runSeconds * CHALLENGE_USERS_PER_VU_SECOND) + 1;
      const plan: ScenarioPlan<ChallengeState> = {
        async prepare(target) {
          const states: ChallengeState[] = vuIndexes.map(() => ({ users: [], current: null, uses: 0 }));
          await Promise.all(
            states.map(async (state, vu) => {
              for (let i = 0; i < perVu; i++) state.users.push(await createUser(target, `Bench ${opts.tag} challenge ${vu}-${i}`));
            }),
          );
          return states;
        },
        async before(target, state, vu) {
          if (state.current !== null && state.uses < CHALLENGES_PER_USER) return;
          state.current = state.users.pop() ?? null;
          state.uses = 0;
          if (state.current === null) {
            state.current = await createUser(target, `Bench ${opts.tag} challenge ${vu}-extra`);
            created.push(performance.now());
          }
        },
        async iterate(target, state) {
          state.uses++;
          await performChallenge(target, state.current!, `${state.current}@bench.example`);
        },
        helperCallsBetween: (from, to) => created.filter((t) => t >= from && t <= to).length,
      };
      return plan;
    }
  }
}
