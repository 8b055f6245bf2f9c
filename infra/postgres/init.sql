-- One database per service, each owned by the service's own role: a service can reach only its own
-- data (CONNECT is revoked from PUBLIC). Runs once, when the PostgreSQL data directory is first
-- initialised (docker-entrypoint-initdb.d). Local passwords only; keep in step with
-- docker-compose.yml. Kubernetes does the same with passwords from the Secret (postgres-init in
-- k8s/cluster/postgres.yaml). Migrations run as that role (`node dist/migrate.js`, the
-- <service>-migrate one-shots); unaccent and pg_trgm are trusted extensions a database owner may create.
CREATE ROLE msp_identity LOGIN PASSWORD 'identity-local-password';
CREATE ROLE msp_catalog LOGIN PASSWORD 'catalog-local-password';
CREATE ROLE msp_media_processing LOGIN PASSWORD 'media-processing-local-password';
CREATE ROLE msp_social LOGIN PASSWORD 'social-local-password';
CREATE ROLE msp_messaging LOGIN PASSWORD 'messaging-local-password';
CREATE ROLE msp_notification LOGIN PASSWORD 'notification-local-password';
CREATE ROLE msp_billing LOGIN PASSWORD 'billing-local-password';
CREATE DATABASE msp_identity OWNER msp_identity;
CREATE DATABASE msp_catalog OWNER msp_catalog;
CREATE DATABASE msp_media_processing OWNER msp_media_processing;
CREATE DATABASE msp_social OWNER msp_social;
CREATE DATABASE msp_messaging OWNER msp_messaging;
CREATE DATABASE msp_notification OWNER msp_notification;
CREATE DATABASE msp_billing OWNER msp_billing;
REVOKE CONNECT ON DATABASE msp_identity, msp_catalog, msp_media_processing, msp_social, msp_messaging, msp_notification, msp_billing FROM PUBLIC;
GRANT CONNECT ON DATABASE msp_identity TO msp_identity;
GRANT CONNECT ON DATABASE msp_catalog TO msp_catalog;
GRANT CONNECT ON DATABASE msp_media_processing TO msp_media_processing;
GRANT CONNECT ON DATABASE msp_social TO msp_social;
GRANT CONNECT ON DATABASE msp_messaging TO msp_messaging;
GRANT CONNECT ON DATABASE msp_notification TO msp_notification;
GRANT CONNECT ON DATABASE msp_billing TO msp_billing;
