-- ACC-1: the export of the user's data is ready (docs/account-control.md "Export").
ALTER TYPE "notification_type" ADD VALUE IF NOT EXISTS 'EXPORT_READY';
