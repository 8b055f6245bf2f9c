import { SocialExportPartReady } from '@msp/events';
import { defineExportPart } from '@msp/runtime';
import { SocialExportRepository } from './export.repository.js';

/** social--account-export: social's part of an account export (docs/account-control.md "Export"); no files. */
export const startSocialExport = defineExportPart('social', SocialExportPartReady, (db) => new SocialExportRepository(db));
