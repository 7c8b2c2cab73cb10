// The customer's sign-in e-mail; the e-mail templates replace this text with their component.

export function signInEmail({ brand, url, minutes }: { brand: string; url: string; minutes: number }) {
  return {
    subject: `Your ${brand} sign-in link`,
    text: `Someone, perhaps you, asked to sign in to your ${brand} account.\n\nSign in here (the link works once, for ${minutes} minutes):\n${url}\n\nIf it was not you, ignore this e-mail: nobody can sign in without this link.`,
  };
}
