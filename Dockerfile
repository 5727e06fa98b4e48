# The agent-runner worker and HTTP API (dist/processes/worker.js, dist/api/main.js). Built by docker-compose.yml;
# configure it with the environment variables in the README's configuration table.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# `npm run build` also bundles the console with this script.
COPY scripts/build-console.ts ./scripts/
# No `npm prune --omit=dev`: the Temporal SDK, zod and fastify are peer dependencies of the package, installed here as
# development ones, and the worker and the API need them at run time.
RUN npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production AGENT_WORKSPACE=/workspace
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /workspace && chown node:node /workspace
USER node
CMD ["node", "dist/processes/worker.js"]
