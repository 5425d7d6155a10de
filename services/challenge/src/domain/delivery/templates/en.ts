/** English messages, the default language. */
import { formatUtc, knownFacts, splitLifetime, type MessageCatalog } from './catalog.js';

export const en: MessageCatalog = {
  lifetime(seconds) {
    const { unit, count } = splitLifetime(seconds);
    return `${count} ${unit}${count === 1 ? '' : 's'}`;
  },
  dateTime: (date) => formatUtc(date, 'en-US'),

  emailOtp: ({ appName, code, lifetime }) => ({
    subject: `${code} is your ${appName} verification code`,
    intro: `Use this code to verify your email address with ${appName}:`,
    code,
    outro: [`The code expires in ${lifetime}.`, `If you did not request it, you can ignore this email; nobody gets access without the code.`],
    footer: `Sent by ${appName}.`,
  }),

  emailLink: ({ appName, url, lifetime }) => ({
    subject: `Your ${appName} sign-in link`,
    intro: `Open this link to verify your email address and continue with ${appName}:`,
    link: { url, label: `Continue to ${appName}` },
    outro: [`The link expires in ${lifetime} and works once.`, `If you did not request it, you can ignore this email.`],
    footer: `Sent by ${appName}.`,
  }),

  smsOtp: ({ appName, code, lifetime }) => `${code} is your ${appName} verification code. It expires in ${lifetime}.`,

  passkeyAdded: ({ appName, facts }) => ({
    subject: `A passkey was added to your ${appName} account`,
    intro: `A new passkey was just added to your ${appName} account.`,
    facts: knownFacts([
      ['Passkey', facts.passkeyName],
      ['Device', facts.device],
      ['Added', facts.addedAt],
    ]),
    outro: [
      `If this was you, there is nothing to do.`,
      `If it was not you, sign in to ${appName}, remove the passkey and review your account's sign-in methods.`,
    ],
    footer: `Sent by ${appName} because the sign-in methods of your account changed.`,
  }),
};
