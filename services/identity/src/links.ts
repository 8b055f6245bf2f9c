import type { IdentityConfig } from './config.js';

/** Absolute URLs the API hands out: web-app links (R13 mails, profileUrl) and public media. */
export class Links {
  private readonly web: string;
  private readonly media: string;

  constructor(config: IdentityConfig) {
    this.web = config.WEB_BASE_URL.replace(/\/+$/, '');
    this.media = (config.MEDIA_PUBLIC_BASE_URL ?? `${config.S3_ENDPOINT.replace(/\/+$/, '')}/${config.S3_BUCKET}`).replace(/\/+$/, '');
  }

  profileUrl(username: string): string {
    return `${this.web}/${username}`;
  }

  /** `{webBaseUrl}/<path>?token=<token>` */
  webLink(path: string, token: string): string {
    return `${this.web}/${path}?token=${encodeURIComponent(token)}`;
  }

  webUrl(pathAndQuery: string): string {
    return `${this.web}${pathAndQuery}`;
  }

  mediaUrl(key: string | null): string | null {
    return key ? `${this.media}/${key}` : null;
  }
}
