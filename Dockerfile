# syntax=docker/dockerfile:1
# One image for every Muninn process. MUNINN_APP picks the entrypoint:
#   standalone (default: all apps in one process) | gateway | retriever | assembler | rewriter | extractor
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the image's npm 10 ignores package.json "allowScripts", and no install script is needed
# (msgpackr-extract loads its prebuilt optional package; @scarf/scarf and the ssh2/cpu-features builds are denied).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
# tsc emits only .js: copy the other files under */src (SQL, vector tables, ...) to the same places in dist.
RUN npm run build \
 && find apps libs -path '*/src/*' -type f ! -name '*.ts' -exec cp --parents {} dist/ \; \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    MUNINN_APP=standalone \
    HOST=0.0.0.0 \
    PORT=1933 \
    MUNINN_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# /data holds the embedded PGlite store when no DATABASE_URL is given.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 1933
# exec: no shell stays in between, so node gets SIGTERM and Nest's shutdown hooks drain the workers.
CMD ["sh", "-c", "test -f \"dist/apps/$MUNINN_APP/src/main.js\" || { echo \"unknown MUNINN_APP '$MUNINN_APP'\" >&2; exit 64; }; exec node \"dist/apps/$MUNINN_APP/src/main.js\""]
