#!/bin/sh
# PostgreSQL's entrypoint (deploy/image/postgres.Containerfile), as the `postgres` user. First
# start (an empty $PGDATA): a cluster whose superuser is $POSTGRES_USER with $POSTGRES_PASSWORD
# (scram-sha-256 over TCP from anywhere the network lets in; the Unix socket stays inside the
# container), and the database $POSTGRES_DB. Then the server in the foreground, under tini.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=browserdeck}"
: "${POSTGRES_DB:=browserdeck}"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres-entrypoint: set POSTGRES_PASSWORD for the first start" >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  printf 'host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  # The database, made on a server that listens on its socket only.
  pg_ctl -D "$PGDATA" -w -o "-c listen_addresses='' -c unix_socket_directories=/tmp" start >/dev/null
  psql -h /tmp -U "$POSTGRES_USER" -d postgres -v ON_ERROR_STOP=1 -q -c "CREATE DATABASE \"$POSTGRES_DB\""
  pg_ctl -D "$PGDATA" -w -m fast stop >/dev/null
  echo "postgres-entrypoint: made the cluster in $PGDATA (user $POSTGRES_USER, database $POSTGRES_DB)"
fi

exec postgres -D "$PGDATA" -c listen_addresses='*' -c unix_socket_directories=/tmp
