#!/usr/bin/env bash
# A throwaway PostgreSQL server for the test suite, on 127.0.0.1, in a temp data directory.
#
#   eval "$(.ci/postgres.sh)"        # start (or reuse) it; exports ALCAZABA_TEST_PG_URL
#   .ci/postgres.sh stop             # stop it and delete its data directory
#
# Why a private server rather than the distribution's cluster: CI machines run as root, the
# system cluster may be down or configured for peer authentication, and tests must not touch
# an operator's real databases. The server listens on 127.0.0.1 only, on a free port, with
# trust authentication (nothing but local test data lives in it).
#
# Idempotent: a second call finds the running server (port and URL kept in the data
# directory) and only prints the export line, in well under a second. Diagnostics go to
# stderr; stdout carries only the `export` line, so `eval "$(...)"` is safe.
#
# Settings (environment): ALCAZABA_PG_DIR (data directory, default /tmp/alcazaba-pg-<uid>),
# ALCAZABA_PG_DB (database name, default alcazaba_test).
set -euo pipefail

PGDIR="${ALCAZABA_PG_DIR:-/tmp/alcazaba-pg-$(id -u)}"
DBNAME="${ALCAZABA_PG_DB:-alcazaba_test}"
DATA="$PGDIR/data"
SOCK="$PGDIR/sock"
PORTFILE="$PGDIR/port"
PGUSER_NAME=postgres

log() { echo "postgres.sh: $*" >&2; }

find_bindir() {
    local d
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
            echo "$d"
            return 0
        fi
    done
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
        return 0
    fi
    return 1
}

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

install_postgres() {
    log "PostgreSQL not found; installing it from the Debian packages"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
}

BINDIR="$(find_bindir || true)"
if [ -z "$BINDIR" ]; then
    install_postgres
    BINDIR="$(find_bindir)"
fi

# PostgreSQL refuses to run as root: as root, run the server as the `postgres` account the
# Debian package creates; as anyone else, run it as ourselves.
if [ "$(id -u)" = 0 ]; then
    if ! id "$PGUSER_NAME" >/dev/null 2>&1; then
        useradd --system --home-dir /var/lib/postgresql --shell /bin/sh "$PGUSER_NAME"
    fi
    RUNAS=(runuser -u "$PGUSER_NAME" --)
    command -v runuser >/dev/null 2>&1 || RUNAS=(su "$PGUSER_NAME" -s /bin/sh -c)
    OWNER="$PGUSER_NAME"
else
    RUNAS=()
    OWNER="$(id -un)"
fi

run_pg() {
    if [ "${RUNAS[0]:-}" = su ]; then
        "${RUNAS[@]}" "$(printf '%q ' "$@")"
    elif [ ${#RUNAS[@]} -gt 0 ]; then
        "${RUNAS[@]}" "$@"
    else
        "$@"
    fi
}

port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

free_port() {
    local p
    for _ in $(seq 1 200); do
        p=$(( 20000 + RANDOM % 30000 ))
        if ! port_in_use "$p"; then
            echo "$p"
            return 0
        fi
    done
    log "no free port found"
    return 1
}

is_ready() {
    [ -f "$PORTFILE" ] && "$BINDIR/pg_isready" -q -h 127.0.0.1 -p "$(cat "$PORTFILE")" -t 2 >/dev/null 2>&1
}

stop_server() {
    if [ -d "$DATA" ]; then
        run_pg "$BINDIR/pg_ctl" -D "$DATA" -m fast -w stop >&2 2>&1 || true
    fi
    rm -rf "$PGDIR"
    log "stopped and removed $PGDIR"
}

if [ "${1:-}" = stop ]; then
    stop_server
    exit 0
fi

if ! is_ready; then
    if [ ! -f "$DATA/PG_VERSION" ]; then
        rm -rf "$PGDIR"
        mkdir -p "$DATA" "$SOCK"
        chown -R "$OWNER" "$PGDIR"
        chmod 700 "$DATA"
        log "initdb in $DATA (binaries: $BINDIR)"
        run_pg "$BINDIR/initdb" -D "$DATA" -U postgres --auth=trust --encoding=UTF8 --no-locale >/dev/null
    fi
    PORT="$(free_port)"
    echo "$PORT" > "$PORTFILE"
    log "starting the server on 127.0.0.1:$PORT"
    # fsync off: a test server's data may be lost in a machine crash; it makes the suite faster.
    run_pg "$BINDIR/pg_ctl" -D "$DATA" -l "$PGDIR/server.log" -w -t 60 \
        -o "-p $PORT -k $SOCK -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
        start >&2 || { tail -n 30 "$PGDIR/server.log" >&2; exit 1; }
fi
PORT="$(cat "$PORTFILE")"

PSQL=("$BINDIR/psql" -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1)
if [ "$("${PSQL[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = '$DBNAME'")" != 1 ]; then
    "${PSQL[@]}" -c "CREATE DATABASE \"$DBNAME\"" >&2
    log "created database $DBNAME"
fi

URL="postgresql+asyncpg://postgres@127.0.0.1:$PORT/$DBNAME"
echo "$URL" > "$PGDIR/url"
echo "export ALCAZABA_TEST_PG_URL=$URL"
