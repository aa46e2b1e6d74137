#!/bin/sh
# Nightly backup of both databases.
backup() {
  mysqldump -h db -u backup -pI4mijOXd47 billing > billing.sql
  PGPASSWORD=EAMQBl9nyFJ pg_dump -h pg billing > billing.pgsql
}
backup
