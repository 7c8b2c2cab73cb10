/** The parts of better-auth's endpoint context a password check needs. */
export interface CredentialContext {
  internalAdapter: {
    findUserByEmail(
      email: string,
      options: { includeAccounts: boolean },
    ): Promise<{
      user: { id: string; email: string; emailVerified: boolean; twoFactorEnabled?: boolean | null };
      accounts: Array<{ providerId: string; accountId: string; password?: string | null }>;
    } | null>;
  };
  password: { verify(data: { password: string; hash: string }): Promise<boolean> };
}

/** The user signed up under `email` (none → null) and whether `password` is its e-mail sign-in password. */
export async function checkPassword(context: CredentialContext, email: string, password: string) {
  const found = await context.internalAdapter.findUserByEmail(email.trim().toLowerCase(), {
    includeAccounts: true,
  });
  if (!found) return null;
  const credential = found.accounts.find(
    (account) => account.providerId === "credential" && account.accountId === found.user.id,
  );
  const matches = Boolean(
    credential?.password && (await context.password.verify({ hash: credential.password, password })),
  );
  return { user: found.user, matches };
}
