#!/bin/bash
# Healthy when PostgreSQL accepts connections and FerretDB answers hello, at the address clients
# use, as the writable primary of replica set $FERRETDB_REPL_SET_NAME (what the compose file's
# mongosh check asks of mongod). No mongosh here: one OP_MSG {hello: 1, $db: "admin"} by hand.
set -euo pipefail
pg_isready -q -h /run/postgresql -U postgres
addr="${FERRETDB_LISTEN_ADDR:-mongo:27017}"
exec 3<>"/dev/tcp/${addr%:*}/${addr##*:}"
# shellcheck disable=SC2016 # $db is the field's name
# header (length 52, requestID 1, responseTo 0, opCode 2013), flags 0, section kind 0, BSON (31 bytes)
printf '\x34\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\xdd\x07\x00\x00\x00\x00\x00\x00\x00'"\
"'\x1f\x00\x00\x00\x10hello\x00\x01\x00\x00\x00\x02$db\x00\x06\x00\x00\x00admin\x00\x00' >&3
# The reply's BSON, split at its NULs: each field name ends at one, so does each string value.
reply="|"
while IFS= read -r -d '' -t 3 -u 3 part; do
  reply+="$part|"
  [[ "$reply" == *"readOnly|"* ]] && break
done
name="${FERRETDB_REPL_SET_NAME:-rs0}"
[[ "$reply" == *"isWritablePrimary|"* && "$reply" == *"setName|"*"|$name|"*"hosts|"* ]] \
  || { echo "FerretDB's hello is not that of the primary of $name: ${reply//[^[:print:]]/.}" >&2; exit 1; }
