import { z } from 'zod';

export const EXPORT_STATUSES = ['PENDING', 'RUNNING', 'READY', 'FAILED', 'CANCELLED', 'EXPIRED'] as const;

export const ExportIdParamSchema = z.object({ exportId: z.uuid() });

export const ExportCreatedSchema = z.object({ exportId: z.uuid() });

export const AccountExportSchema = z.object({
  id: z.uuid(),
  status: z.enum(EXPORT_STATUSES),
  createdAt: z.string(),
  readyAt: z.string().nullable(),
  expiresAt: z.string().nullable(),
  /** A signed object-storage URL of the ZIP, only while READY (valid until expiresAt). */
  url: z.string().optional(),
});
export type AccountExport = z.infer<typeof AccountExportSchema>;
