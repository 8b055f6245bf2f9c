#!/bin/sh
# One MinIO user per service, whose policy allows only its own bucket msp-<service> (create it, set
# its policy, read and write its objects). Idempotent: safe to run at every start.
# Root credentials: MINIO_ROOT_USER / MINIO_ROOT_PASSWORD. Each service's secret: <NAME>_S3_SECRET_KEY
# (e.g. CATALOG_S3_SECRET_KEY, MEDIA_PROCESSING_S3_SECRET_KEY); default "<service>-local-s3-secret"
# (compose only). The access key is msp-<service>. Used by compose (minio-setup) and by the
# minio-setup Job of k8s/cluster/minio.yaml.
set -eu
MINIO_URL="${MINIO_URL:-http://minio:9000}"
until mc alias set msp "$MINIO_URL" "$MINIO_ROOT_USER" "$MINIO_ROOT_PASSWORD" >/dev/null 2>&1; do
  echo "waiting for MinIO at $MINIO_URL"; sleep 2
done
for service in identity catalog media-processing social messaging notification billing; do
  var="$(echo "$service" | tr 'a-z-' 'A-Z_')_S3_SECRET_KEY"
  secret="$(printenv "$var" || true)"
  [ -n "$secret" ] || secret="${service}-local-s3-secret"
  bucket="msp-${service}"
  policy="/tmp/${bucket}.json"
  cat > "$policy" <<JSON
{
  "Version": "2012-10-17",
  "Statement": [
    { "Effect": "Allow", "Action": ["s3:*"], "Resource": ["arn:aws:s3:::${bucket}", "arn:aws:s3:::${bucket}/*"] }
  ]
}
JSON
  mc admin policy create msp "$bucket" "$policy" >/dev/null
  mc admin user add msp "msp-${service}" "$secret" >/dev/null
  mc admin policy attach msp "$bucket" --user "msp-${service}" >/dev/null 2>&1 || true
  echo "user msp-${service}: bucket ${bucket} only"
done
