/** German messages (`language: "de"`). */
import { formatUtc, knownFacts, splitLifetime, type MessageCatalog } from './catalog.js';

export const de: MessageCatalog = {
  lifetime(seconds) {
    const { unit, count } = splitLifetime(seconds);
    if (unit === 'minute') return `${count} ${count === 1 ? 'Minute' : 'Minuten'}`;
    return `${count} ${count === 1 ? 'Stunde' : 'Stunden'}`;
  },
  dateTime: (date) => formatUtc(date, 'de-DE'),

  emailOtp: ({ appName, code, lifetime }) => ({
    subject: `${code} ist Ihr Bestätigungscode für ${appName}`,
    intro: `Mit diesem Code bestätigen Sie Ihre E-Mail-Adresse bei ${appName}:`,
    code,
    outro: [
      `Der Code ist ${lifetime} lang gültig.`,
      `Falls Sie ihn nicht angefordert haben, können Sie diese E-Mail ignorieren; ohne den Code erhält niemand Zugriff.`,
    ],
    footer: `Gesendet von ${appName}.`,
  }),

  emailLink: ({ appName, url, lifetime }) => ({
    subject: `Ihr Anmeldelink für ${appName}`,
    intro: `Öffnen Sie diesen Link, um Ihre E-Mail-Adresse zu bestätigen und bei ${appName} fortzufahren:`,
    link: { url, label: `Weiter zu ${appName}` },
    outro: [`Der Link ist ${lifetime} lang gültig und funktioniert einmal.`, `Falls Sie ihn nicht angefordert haben, können Sie diese E-Mail ignorieren.`],
    footer: `Gesendet von ${appName}.`,
  }),

  smsOtp: ({ appName, code, lifetime }) => `${code} ist Ihr Bestätigungscode für ${appName}. Gültig für ${lifetime}.`,

  passkeyAdded: ({ appName, facts }) => ({
    subject: `Neuer Passkey für Ihr ${appName}-Konto`,
    intro: `Zu Ihrem ${appName}-Konto wurde soeben ein neuer Passkey hinzugefügt.`,
    facts: knownFacts([
      ['Passkey', facts.passkeyName],
      ['Gerät', facts.device],
      ['Hinzugefügt', facts.addedAt],
    ]),
    outro: [
      `Wenn Sie das waren, ist nichts weiter zu tun.`,
      `Wenn nicht, melden Sie sich bei ${appName} an, entfernen Sie den Passkey und prüfen Sie die Anmeldemethoden Ihres Kontos.`,
    ],
    footer: `Gesendet von ${appName}, weil sich die Anmeldemethoden Ihres Kontos geändert haben.`,
  }),
};
