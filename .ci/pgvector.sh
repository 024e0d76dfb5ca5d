#!/usr/bin/env bash
# Makes the pgvector extension installable into the local Debian PostgreSQL server.
#
# Debian bookworm ships no pgvector package, so this builds Debian's own pgvector source (trixie's
# pgvector 0.8.0 source package) against the local server's headers. The source is fetched by apt
# through a PRIVATE sources list, lists directory and cache, so the system's apt configuration and
# state stay unchanged.
#
# Idempotent: exits at once when vector.control and vector.so are already installed for this major.
# Cache-friendly: the source tarball and the compiled tree are kept in $MUNINN_CI_CACHE (default
# /var/cache/muninn-ci), so a machine that lost its install only re-runs `make install`.
#
# Usage: bash .ci/pgvector.sh            (PG_MAJOR defaults to the newest in /etc/postgresql)
set -euo pipefail

PGVECTOR_VERSION=0.8.0
PGVECTOR_SUITE=trixie
PG_MAJOR="${PG_MAJOR:-$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1 || true)}"
CACHE_ROOT="${MUNINN_CI_CACHE:-/var/cache/muninn-ci}"

log() { echo "[pgvector] $*"; }
die() { echo "[pgvector] ERROR: $*" >&2; exit 1; }

[[ -n "$PG_MAJOR" ]] || die "no PostgreSQL found in /etc/postgresql"
PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
[[ -x "$PG_CONFIG" ]] || die "$PG_CONFIG not found (is postgresql-$PG_MAJOR installed?)"

sharedir="$("$PG_CONFIG" --sharedir)"
pkglibdir="$("$PG_CONFIG" --pkglibdir)"
if [[ -f "$sharedir/extension/vector.control" && -f "$pkglibdir/vector.so" ]]; then
  log "already installed for PostgreSQL $PG_MAJOR ($(grep -o "default_version = '[^']*'" "$sharedir/extension/vector.control")); nothing to do"
  exit 0
fi

SECONDS=0
apt_install() {
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null \
    || { log "install failed; running apt-get update and retrying"; apt-get update -q >/dev/null; \
         DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null; }
}

# 1. Server headers and the build toolchain (postgresql-server-dev pulls in clang for LLVM bitcode).
if [[ ! -f "$("$PG_CONFIG" --includedir-server)/postgres.h" ]]; then
  apt_install "postgresql-server-dev-$PG_MAJOR"
fi
command -v make >/dev/null && command -v gcc >/dev/null || apt_install make gcc

# 2. Debian's source tarball, through a private apt configuration.
src_cache="$CACHE_ROOT/pgvector-$PGVECTOR_VERSION"
orig="$src_cache/pgvector_$PGVECTOR_VERSION.orig.tar.gz"
if [[ ! -f "$orig" ]]; then
  apt_dir="$src_cache/apt"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/sources.list.d" "$apt_dir/download"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $PGVECTOR_SUITE main" \
    > "$apt_dir/sources.list"
  apt_opts=(
    -o "Dir::Etc::sourcelist=$apt_dir/sources.list"
    -o "Dir::Etc::sourceparts=$apt_dir/sources.list.d"
    -o "Dir::State::Lists=$apt_dir/lists"
    -o "Dir::Cache=$apt_dir/cache"
    -o "APT::Sandbox::User=root"
    -q
  )
  log "fetching the $PGVECTOR_SUITE source index (private apt lists in $apt_dir)"
  apt-get "${apt_opts[@]}" update >/dev/null
  srcver="$(apt-cache "${apt_opts[@]}" showsrc pgvector | awk '/^Version:/ {print $2}' | grep "^$PGVECTOR_VERSION-" | sort -V | tail -n 1 || true)"
  [[ -n "$srcver" ]] || die "pgvector $PGVECTOR_VERSION is not in Debian $PGVECTOR_SUITE's sources"
  log "apt-get source --download-only pgvector=$srcver"
  (cd "$apt_dir/download" && apt-get "${apt_opts[@]}" source --download-only "pgvector=$srcver" >/dev/null)
  mv "$apt_dir/download/pgvector_$PGVECTOR_VERSION.orig.tar.gz" "$orig"
  rm -rf "$apt_dir"   # the index is ~10 MB and only needed once
fi

# 3. Build (or reuse the cached build) and install.
build="$src_cache/build-pg$PG_MAJOR"
if [[ ! -f "$build/vector.so" ]]; then
  rm -rf "$build" && mkdir -p "$build"
  tar -xzf "$orig" -C "$build" --strip-components=1
  log "make (PostgreSQL $PG_MAJOR)"
  # OPTFLAGS="" drops -march=native, so a cached build also runs on another CPU of the same kind.
  make -C "$build" -s -j"$(nproc)" OPTFLAGS="" PG_CONFIG="$PG_CONFIG" >"$build/build.log" 2>&1 \
    || { tail -n 30 "$build/build.log" >&2; die "make failed (log: $build/build.log)"; }
fi
log "make install"
make -C "$build" -s OPTFLAGS="" PG_CONFIG="$PG_CONFIG" install >/dev/null

[[ -f "$sharedir/extension/vector.control" && -f "$pkglibdir/vector.so" ]] || die "install did not produce vector.control/vector.so"
log "pgvector $PGVECTOR_VERSION installed for PostgreSQL $PG_MAJOR in ${SECONDS}s"
