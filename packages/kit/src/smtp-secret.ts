/**
 * An SMTP password out of a server's answer or a connection error. A server may echo what it was
 * sent, and AUTH sends the password in clear (AUTH LOGIN: its base64; AUTH PLAIN: the base64 of
 * `\0user\0password`), so every form is taken out before the text is stored (an integration's
 * `status_reason`, a send's `last_error`) or logged. Used by the directory's integration check and
 * messaging's delivery: one rule for both.
 */
export function redactSmtpSecret(text: string, username: string | undefined, password: string | undefined): string {
  if (!password) return text;
  // Longest first: the password's own base64 can sit inside AUTH PLAIN's token.
  const forms = [base64(`\u0000${username ?? ''}\u0000${password}`), base64(password), password];
  let redacted = text;
  for (const form of forms) redacted = redacted.split(form).join('[secret]');
  return redacted;
}

const base64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
