/** The three mails of R13 (plus a notice to the old address on e-mail change). Plain and HTML bodies. */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

function linkMail(subject: string, greeting: string, intro: string, link: string, validity: string): MailContent {
  const text = `${greeting}\n\n${intro}\n\n${link}\n\n${validity}\nIf you did not ask for this, ignore this mail.\n`;
  const html = `<p>${escapeHtml(greeting)}</p><p>${escapeHtml(intro)}</p><p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p><p>${escapeHtml(validity)}<br>If you did not ask for this, ignore this mail.</p>`;
  return { subject, text, html };
}

export const mailTemplates = {
  verifyEmail: (name: string, link: string) =>
    linkMail(
      'Verify your e-mail address',
      `Hi ${name},`,
      'Confirm your e-mail address to finish creating your account:',
      link,
      'The link works once and expires in 24 hours.',
    ),
  resetPassword: (name: string, link: string) =>
    linkMail('Reset your password', `Hi ${name},`, 'Choose a new password with this link:', link, 'The link works once and expires in 30 minutes.'),
  changeEmail: (name: string, link: string) =>
    linkMail(
      'Confirm your new e-mail address',
      `Hi ${name},`,
      'Confirm this address for your account:',
      link,
      'The link works once and expires in 30 minutes.',
    ),
  emailChangedNotice: (name: string, newEmail: string): MailContent => {
    const text = `Hi ${name},\n\nThe primary e-mail address of your account was changed to ${newEmail}.\nIf this was not you, reset your password at once.\n`;
    return { subject: 'Your e-mail address was changed', text, html: `<p>${escapeHtml(text).replace(/\n/g, '<br>')}</p>` };
  },
};
