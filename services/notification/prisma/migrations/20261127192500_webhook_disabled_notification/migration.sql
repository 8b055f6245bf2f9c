-- A webhook failing for the retry window was disabled: its owner is told (docs/developer-platform.md "Webhooks").
ALTER TYPE "notification_type" ADD VALUE IF NOT EXISTS 'WEBHOOK_DISABLED';
