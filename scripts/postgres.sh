#!/usr/bin/env bash
# Installs and runs private PostgreSQL servers for Weir's tests and for
# trying the PostgreSQL sink by hand. No system-wide server is used or needed.
#
#   scripts/postgres.sh install            install Debian's postgresql-15 if missing
#   scripts/postgres.sh start DIR PORT     initdb DIR/data (once) and start a server on
#                                          127.0.0.1:PORT, socket and server.log in DIR;
#                                          prints the DSN
#   scripts/postgres.sh stop DIR [MODE]    stop it; MODE is smart, fast (default) or immediate
#
# The server trusts local connections (user postgres, no password) and has
# max_prepared_transactions=64, which the two-phase-commit sink needs.
# initdb refuses to run as root, so as root the server runs as the postgres
# user (created by the package) and DIR is handed to that user.
# WEIR_PGBIN overrides the directory of the server binaries.
set -euo pipefail

die() { echo "postgres.sh: $*" >&2; exit 1; }

# pgbin prints the directory of the server binaries: WEIR_PGBIN, else
# Debian's PostgreSQL 15, else the newest installed major version.
pgbin() {
  if [ -n "${WEIR_PGBIN:-}" ]; then
    [ -x "$WEIR_PGBIN/postgres" ] || return 1
    echo "$WEIR_PGBIN"; return
  fi
  if [ -x /usr/lib/postgresql/15/bin/postgres ]; then echo /usr/lib/postgresql/15/bin; return; fi
  local best
  best=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n | tail -n1 || true)
  [ -n "$best" ] && [ -x "$best/postgres" ] || return 1
  echo "$best"
}

# as_pg runs a command as the postgres user when we are root.
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

install_pg() {
  if pgbin >/dev/null; then return 0; fi
  [ "$(id -u)" -eq 0 ] || die "PostgreSQL is not installed; run '$0 install' as root"
  export DEBIAN_FRONTEND=noninteractive
  # Tests start their own servers: do not create and start the package's
  # default cluster on port 5432 (saves an initdb; leaves no server running).
  mkdir -p /etc/postgresql-common/createcluster.d
  [ -e /etc/postgresql-common/createcluster.d/weir.conf ] ||
    echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/weir.conf
  local apt=(apt-get install -y -qq --no-install-recommends)
  echo "postgres.sh: installing PostgreSQL (Debian package)" >&2
  # A fresh machine may have no package lists yet: update once on failure.
  if ! "${apt[@]}" postgresql-15 >/dev/null 2>&1; then
    apt-get update -qq >/dev/null
    "${apt[@]}" postgresql-15 >/dev/null || "${apt[@]}" postgresql >/dev/null ||
      die "apt-get could not install postgresql-15 or postgresql"
  fi
  pgbin >/dev/null || die "installed, but no server binaries under /usr/lib/postgresql"
}

start_pg() {
  local dir=${1:?usage: start DIR PORT} port=${2:?usage: start DIR PORT} bin
  bin=$(pgbin) || die "PostgreSQL is not installed: run '$0 install' (scripts/test.sh does)"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  # Unix socket paths are limited to 107 bytes.
  [ ${#dir} -le 80 ] || die "DIR path too long for the server's socket: $dir"
  if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$dir"; fi
  chmod 700 "$dir"
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  fi
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o \
    "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_prepared_transactions=64" \
    start >/dev/null || { tail -n 20 "$dir/server.log" >&2 || true; die "server did not start"; }
  echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
}

stop_pg() {
  local dir=${1:?usage: stop DIR [smart|fast|immediate]} mode=${2:-fast} bin
  case "$mode" in smart | fast | immediate) ;; *) die "unknown stop mode $mode" ;; esac
  bin=$(pgbin) || die "PostgreSQL is not installed"
  [ -f "$dir/data/postmaster.pid" ] || return 0 # not running
  as_pg "$bin/pg_ctl" -D "$dir/data" -m "$mode" -w stop >/dev/null
}

case "${1:-}" in
install) install_pg ;;
start) shift; start_pg "$@" ;;
stop) shift; stop_pg "$@" ;;
*) die "usage: $0 install | start DIR PORT | stop DIR [smart|fast|immediate]" ;;
esac
