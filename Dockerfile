# syntax=docker/dockerfile:1
#
# One image for every process of the stack; the command names the process:
#   docker build -t passkeyauth .
#   docker run --rm -p 8080:8080 -p 8081:8081 -e INTERNAL_AUTH_KEYS=… -e CEREMONY_URL=… passkeyauth gateway
#   docker run --rm -p 7101:7101 -e MONGODB_URI=… -e INTERNAL_AUTH_KEYS=… passkeyauth ceremony   (also: challenge, connect)
# Project administration from the same image (no shell in it; run node directly):
#   kubectl exec deploy/connect -- /nodejs/bin/node dist/services/connect/src/cli/project.js list
#
# Stages: build (all dependencies, tsc → dist/), deps (the services' production dependencies only), runtime
# (distroless Node.js 24, the version package.json pins for npm start and the tests: no shell or
# package manager; runs as uid/gid 10001, as deploy/k8s sets).

ARG NODE_IMAGE=node:24-bookworm-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs24-debian12:nonroot

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts are not needed to compile (they fetch the buf and esbuild binaries of dev tools).
# --workspaces=false: the workspace packages (packages/embedded-mongo, examples/demo) are not in
# the build context's copy and nothing compiled into the image imports them.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund --workspaces=false
COPY tsconfig.json tsconfig.build.json ./
COPY gen ./gen
COPY services ./services
COPY gateway ./gateway
COPY deploy/container ./deploy/container
RUN npm run build

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The root package's production dependencies, which are what the services use; neither the
# workspace packages (the embedded store, the demo) nor their dependencies: only package.json and
# the lock file are here, and --workspaces=false says so (sizes in docs/operations.md, "Container image").
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund --workspaces=false

FROM ${RUNTIME_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    NODE_OPTIONS=--enable-source-maps
# package.json marks dist/**/*.js as ES modules ("type": "module"). Files stay owned by root:
# the process (uid 10001) can read but not change them; the root filesystem can be read-only.
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# A numeric user, so Kubernetes can verify runAsNonRoot; the manifests run as the same uid/gid.
USER 10001:10001
# gateway: 8080 frontend API, 8081 backend API; ceremony 7101, challenge 7102, connect 7103, events 7104.
# Every process also serves /healthz, /readyz and /metrics on its (first) port.
EXPOSE 8080 8081 7101 7102 7103 7104
# The old generation may double between full collections: under a heap limit below 256 MB (the
# manifests set 192) V8 would allow only 1.3x, and collect every second or so under load
# (deploy/local/processes.ts). The flag is not allowed in NODE_OPTIONS, so it is passed here.
ENTRYPOINT ["/nodejs/bin/node", "--heap-growing-percent=100", "dist/deploy/container/entrypoint.js"]
CMD ["gateway"]
