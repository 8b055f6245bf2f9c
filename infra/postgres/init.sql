-- One database per service. Runs once, when the PostgreSQL data directory is first initialised
-- (docker-entrypoint-initdb.d). Keep in sync with the postgres-init ConfigMap in k8s/cluster/postgres.yaml.
-- Each service applies its own migrations at start (DB_AUTO_MIGRATE=true, guarded by an advisory lock).
CREATE DATABASE msp_identity;
CREATE DATABASE msp_catalog;
CREATE DATABASE msp_media_processing;
CREATE DATABASE msp_social;
CREATE DATABASE msp_messaging;
CREATE DATABASE msp_notification;
CREATE DATABASE msp_billing;
