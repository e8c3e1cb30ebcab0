# booking-gateway: build with the dev dependencies, run with the production ones only.
#   docker build -t booking-gateway .
#   docker run -p 8787:8787 -v gateway-data:/data -v "$PWD/hosts.json:/config/hosts.json:ro" booking-gateway
# Several replicas: compose.yaml (one Redis, one shared data volume, a reverse proxy in front).

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bin ./bin
RUN npm run build && npm prune --omit=dev

FROM node:20-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    GATEWAY_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
# The data directory holds host signing keys and the operator credential: owned by the
# unprivileged user the gateway runs as, kept on a volume.
RUN mkdir -p /data /config && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 8787
# Liveness only (/healthz); readiness (/readyz: the store answers) is for the load balancer.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8787)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "bin/booking-gateway.js", "serve", "--config", "/config/hosts.json"]
