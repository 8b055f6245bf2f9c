import type { MailContent } from '../mail/mail.templates.js';

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

/** The mail of a READY export (ACC-1): a link to the web app's export page, which reads ACC-2. */
export function exportReadyMail(name: string, link: string, expiresAt: Date): MailContent {
  const until = expiresAt.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const text = `Hi ${name},\n\nThe export of your data is ready. Download it here:\n\n${link}\n\nThe download is available until ${until}.\nIf you did not ask for this, change your password.\n`;
  const html = `<p>Hi ${escapeHtml(name)},</p><p>The export of your data is ready. Download it here:</p><p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p><p>The download is available until ${escapeHtml(until)}.<br>If you did not ask for this, change your password.</p>`;
  return { subject: 'Your data export is ready', text, html };
}
