# Build: docker build -t spelbord .   Run: see docker-compose.yml.
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /app spelbord
WORKDIR /app
COPY --from=build /src/target/release/spelbord /usr/local/bin/spelbord
COPY config ./config
ENV APP_ENVIRONMENT=production
EXPOSE 8080
USER spelbord
CMD ["spelbord"]
