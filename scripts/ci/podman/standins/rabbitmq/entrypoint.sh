#!/bin/sh
# The RabbitMQ stand-in's PID 1: the node runs as the rabbitmq user (setpriv: no process in
# between, so SIGTERM reaches it), its data in /var/lib/rabbitmq (a volume in docker-compose.yml),
# owned by rabbitmq whatever the volume came with.
set -eu
mkdir -p /var/lib/rabbitmq /var/log/rabbitmq
chown -R rabbitmq:rabbitmq /var/lib/rabbitmq /var/log/rabbitmq
cd /var/lib/rabbitmq
HOME=/var/lib/rabbitmq exec setpriv --reuid=rabbitmq --regid=rabbitmq --init-groups \
  /usr/lib/rabbitmq/bin/rabbitmq-server "$@"
