#!/usr/bin/env bash
# Local Redis and PostgreSQL for CI and for developers' test runs.
#
# Sourced by .ci/run, which calls ensure_redis / ensure_postgres and stops at exit only what was
# started here (by pid file / pg_ctlcluster), never a server that was already running.
# Can also be run on its own to check one piece:
#   bash .ci/services.sh redis       # ensure Redis answers on 127.0.0.1:6379
#   bash .ci/services.sh postgres    # ensure PostgreSQL is up, print a working URL, check pgvector
# (run on its own, a server it starts is left running; the line to stop it is printed)

REDIS_HOST=127.0.0.1
REDIS_PORT="${MUNINN_CI_REDIS_PORT:-6379}"
PG_HOST=127.0.0.1
PG_PORT="${MUNINN_CI_PG_PORT:-5432}"
PG_DB=test
CI_STATE_DIR="${MUNINN_CI_STATE_DIR:-/tmp/muninn-ci}"
STARTED_REDIS_PIDFILE=""   # set when ensure_redis started a server
STARTED_PG_CLUSTER=""      # "<major> main" when ensure_postgres started a cluster
PG_URL=""                  # set by ensure_postgres to a URL that connects with no password prompt

svc_log() { echo "[services] $*" >&2; }

apt_install() {
  svc_log "apt-get update && apt-get install $*"
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null
}

# Sends PING over bash's /dev/tcp, so it needs no redis-cli.
redis_ping() {
  local reply=""
  { exec 3<>"/dev/tcp/$REDIS_HOST/$REDIS_PORT"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  IFS= read -r -t 2 reply <&3 || true
  exec 3<&- 3>&-
  [[ "$reply" == "+PONG"* ]]
}

ensure_redis() {
  if redis_ping; then
    svc_log "Redis already answers PING on $REDIS_HOST:$REDIS_PORT"
    return 0
  fi
  command -v redis-server >/dev/null || apt_install redis-server || { svc_log "could not install redis-server"; return 1; }
  mkdir -p "$CI_STATE_DIR"
  local pidfile="$CI_STATE_DIR/redis-$REDIS_PORT.pid"
  svc_log "starting redis-server on $REDIS_HOST:$REDIS_PORT (no persistence, pid file $pidfile)"
  redis-server --daemonize yes --bind "$REDIS_HOST" --port "$REDIS_PORT" --save "" --appendonly no \
    --dir "$CI_STATE_DIR" --pidfile "$pidfile" --logfile "$CI_STATE_DIR/redis-$REDIS_PORT.log" || return 1
  STARTED_REDIS_PIDFILE="$pidfile"
  local i
  for i in $(seq 1 50); do
    redis_ping && { svc_log "Redis is up ($(redis-server --version | awk '{print $3}'))"; return 0; }
    sleep 0.1
  done
  svc_log "redis-server did not answer within 5 s; log: $CI_STATE_DIR/redis-$REDIS_PORT.log"
  return 1
}

stop_started_redis() {
  [[ -n "$STARTED_REDIS_PIDFILE" && -f "$STARTED_REDIS_PIDFILE" ]] || return 0
  local pid; pid="$(cat "$STARTED_REDIS_PIDFILE")"
  svc_log "stopping the redis-server this run started (pid $pid)"
  kill "$pid" 2>/dev/null || true
  local i
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  STARTED_REDIS_PIDFILE=""
}

pg_major() { ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1 || true; }

pg_ready() { pg_isready -q -h "$PG_HOST" -p "$PG_PORT" -t 2 2>/dev/null; }

# psql against a URL: no password prompt, short connect timeout, errors to stderr only.
pg_try() { PGCONNECT_TIMEOUT=5 psql -w -X -q -v ON_ERROR_STOP=1 "$1" -tAc "$2" 2>&1; }

ensure_postgres() {
  local major; major="$(pg_major)"
  if [[ -z "$major" || ! -x "$(command -v pg_ctlcluster)" ]]; then
    apt_install postgresql || { svc_log "could not install postgresql"; return 1; }
    major="$(pg_major)"
  fi
  [[ -n "$major" ]] || { svc_log "no PostgreSQL cluster configuration under /etc/postgresql"; return 1; }
  if [[ ! -d "/etc/postgresql/$major/main" ]]; then
    svc_log "creating cluster $major/main"
    pg_createcluster "$major" main --port "$PG_PORT" >/dev/null || return 1
  fi
  if ! pg_ready; then
    svc_log "starting PostgreSQL $major/main"
    pg_ctlcluster --skip-systemctl-redirect "$major" main start || return 1
    STARTED_PG_CLUSTER="$major main"
    local i
    for i in $(seq 1 60); do pg_ready && break; sleep 0.5; done
    pg_ready || { svc_log "PostgreSQL did not become ready in 30 s"; return 1; }
  fi
  svc_log "PostgreSQL $major is up on $PG_HOST:$PG_PORT"

  # Find a role that gets in over TCP without a password (the machine's trust setup: root or postgres).
  local user
  for user in root postgres; do
    if pg_try "postgres://$user@$PG_HOST:$PG_PORT/$PG_DB" 'select 1' >/dev/null; then
      PG_URL="postgres://$user@$PG_HOST:$PG_PORT/$PG_DB"
      break
    fi
  done
  if [[ -z "$PG_URL" ]]; then
    # A freshly installed cluster: no trust over TCP and maybe no `test` database. Over the local socket
    # (peer auth as the postgres OS user) create a password role for tests; pg_hba.conf stays unchanged.
    svc_log "no passwordless TCP role; creating role muninn_ci and database $PG_DB over the local socket"
    runuser -u postgres -- psql -X -q -p "$PG_PORT" -v ON_ERROR_STOP=1 -d postgres >/dev/null <<SQL || return 1
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'muninn_ci') THEN
    CREATE ROLE muninn_ci LOGIN SUPERUSER PASSWORD 'muninn_ci';
  END IF;
END \$\$;
SELECT 'CREATE DATABASE $PG_DB' WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = '$PG_DB')\gexec
SQL
    PG_URL="postgres://muninn_ci:muninn_ci@$PG_HOST:$PG_PORT/$PG_DB"
    pg_try "$PG_URL" 'select 1' >/dev/null || { svc_log "cannot connect as muninn_ci"; PG_URL=""; return 1; }
  fi
  svc_log "connected: ${PG_URL/:muninn_ci@/:***@}"
}

# pgvector on disk (pg_available_extensions reads the control files, so a catalog entry left in `test`
# can't hide missing files) and `CREATE EXTENSION vector` in the test database. Builds pgvector from
# Debian's source (.ci/pgvector.sh) when that fails.
pgvector_check() {
  local avail
  avail="$(pg_try "$PG_URL" "select count(*) from pg_available_extensions where name = 'vector'")" || { echo "$avail"; return 1; }
  [[ "$avail" == 1 ]] || { echo "vector is not in pg_available_extensions"; return 1; }
  pg_try "$PG_URL" 'CREATE EXTENSION IF NOT EXISTS vector'
}

ensure_pgvector() {
  local out
  if ! out="$(pgvector_check)"; then
    svc_log "pgvector missing: ${out//$'\n'/ }"
    local here; here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
    PG_MAJOR="$(pg_major)" bash "$here/pgvector.sh" || return 1
    out="$(pgvector_check)" || { svc_log "pgvector still unavailable after the build: $out"; return 1; }
  fi
  svc_log "pgvector available (extversion $(pg_try "$PG_URL" "select extversion from pg_extension where extname = 'vector'") in $PG_DB)"
}

stop_started_postgres() {
  [[ -n "$STARTED_PG_CLUSTER" ]] || return 0
  svc_log "stopping the PostgreSQL cluster this run started ($STARTED_PG_CLUSTER)"
  # shellcheck disable=SC2086
  pg_ctlcluster --skip-systemctl-redirect $STARTED_PG_CLUSTER stop -m fast || true
  STARTED_PG_CLUSTER=""
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  case "${1:-}" in
    redis)
      ensure_redis
      echo "REDIS_URL=redis://$REDIS_HOST:$REDIS_PORT"
      [[ -z "$STARTED_REDIS_PIDFILE" ]] || echo "started; stop with: kill \$(cat $STARTED_REDIS_PIDFILE)"
      ;;
    postgres)
      ensure_postgres
      ensure_pgvector
      echo "MUNINN_TEST_DATABASE_URL=$PG_URL"
      [[ -z "$STARTED_PG_CLUSTER" ]] || echo "started; stop with: pg_ctlcluster --skip-systemctl-redirect $STARTED_PG_CLUSTER stop"
      ;;
    *) echo "usage: bash .ci/services.sh redis|postgres" >&2; exit 2 ;;
  esac
fi
