/**
 * The connect service as the ceremony service sees it: its ProjectService (GetProjectPublicInfo,
 * SignPasskeyData) and UserService (GetUser), in memory over a router transport, with two test
 * projects and a few users. Records the project header of every call.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createRouterTransport, type HandlerContext } from '@connectrpc/connect';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import {
  GetProjectPublicInfoResponseSchema,
  ProjectService,
  SignPasskeyDataResponseSchema,
} from '../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { GetUserResponseSchema, UserService } from '../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { HEADERS } from '../../services/runtime/wire.js';

export interface TestProject {
  projectId: string;
  rpId: string;
  rpName: string;
  origins: string[];
  userVerification: 'required' | 'preferred' | 'discouraged';
  frontendApiUrl: string;
  cloneDetection?: 'block' | 'record';
}

export const PROJECTS: Record<string, TestProject> = {
  'pro-1': { projectId: 'pro-1', rpId: 'example.com', rpName: 'Example', origins: ['https://app.example.com', 'https://example.com'], userVerification: 'required', frontendApiUrl: 'https://pro-1.auth.example.com' },
  'pro-2': { projectId: 'pro-2', rpId: 'other.test', rpName: 'Other', origins: ['https://other.test'], userVerification: 'preferred', frontendApiUrl: 'https://pro-2.auth.example.com', cloneDetection: 'record' },
};
export const ORIGIN = 'https://app.example.com';

/** The connect service's ProjectService and UserService, in memory; records the project header of every call. */
export class FakeConnect {
  readonly users = new Map<string, { fullName?: string; explicitWebauthnId?: string }>([
    ['pro-1/usr-1', { fullName: 'Ada Lovelace' }],
    ['pro-1/usr-2', {}],
    ['pro-1/usr-7', { explicitWebauthnId: 'legacy-handle-7' }],
    ['pro-2/usr-1', {}],
  ]);
  readonly calls: string[] = [];
  projectInfoCalls = 0;
  privateKey!: CryptoKey;
  publicJwk!: JWK;

  async init(): Promise<this> {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    this.privateKey = privateKey;
    this.publicJwk = await exportJWK(publicKey);
    return this;
  }

  private header(ctx: HandlerContext): string {
    return ctx.requestHeader.get(HEADERS.projectId) ?? '';
  }

  transport() {
    return createRouterTransport((router) => {
      router.service(ProjectService, {
        getProjectPublicInfo: async (req, ctx) => {
          this.projectInfoCalls++;
          this.calls.push(`GetProjectPublicInfo ${req.projectId} header=${this.header(ctx)}`);
          const p = PROJECTS[req.projectId];
          if (!p) throw new ConnectError('project not found', Code.NotFound);
          return create(GetProjectPublicInfoResponseSchema, { ...p, appName: p.rpName });
        },
        signPasskeyData: async (req, ctx) => {
          const projectId = this.header(ctx);
          this.calls.push(`SignPasskeyData header=${projectId} expiresIn=${req.expiresInSeconds}`);
          const d = req.passkeyData!;
          const token = await new SignJWT({
            kind: 'passkey_data',
            id: d.id,
            userID: d.userId,
            username: d.username,
            challengeID: d.challengeId,
            ceremonyType: d.ceremonyType,
            aaguidDetails: { aaguid: d.aaguidDetails?.aaguid ?? '', name: d.aaguidDetails?.name ?? '' },
          })
            .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
            .setSubject(d.userId)
            .setIssuer(PROJECTS[projectId].frontendApiUrl)
            .setAudience(projectId)
            .setIssuedAt()
            .setExpirationTime(`${req.expiresInSeconds}s`)
            .sign(this.privateKey);
          return create(SignPasskeyDataResponseSchema, { signedPasskeyData: token });
        },
      });
      router.service(UserService, {
        getUser: async (req, ctx) => {
          const projectId = this.header(ctx);
          this.calls.push(`GetUser ${req.userId} header=${projectId}`);
          const u = this.users.get(`${projectId}/${req.userId}`);
          if (!u) throw new ConnectError('user not found', Code.NotFound);
          return create(GetUserResponseSchema, { user: { userId: req.userId, status: 'active', ...u } });
        },
      });
    });
  }
}
