/** What the API client signs in with; read from the keychain for each token request, never kept. */
export type Credentials =
  { kind: 'client'; clientId: string; clientSecret: string } | { kind: 'token'; accessToken: string };
