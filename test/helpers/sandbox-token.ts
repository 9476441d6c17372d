/** An access token of the sandbox for a second client (a test looking at what the API holds). */
export async function sandboxToken(
  sandbox: { url: string; clientId: string; clientSecret: string },
  scope = 'read',
): Promise<string> {
  const answer = await fetch(`${sandbox.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: sandbox.clientId,
      client_secret: sandbox.clientSecret,
      scope,
    }),
  });
  if (answer.status !== 200) throw new Error(`the sandbox refused a token (${answer.status})`);
  return ((await answer.json()) as { access_token: string }).access_token;
}

/**
 * A colleague's requests straight to the sandbox's API with `token` (from sandboxToken): `body`
 * sent as JSON, the answer's HTTP status returned.
 */
export function colleagueApi(
  sandbox: { url: string },
  token: string,
): (method: string, apiPath: string, body: unknown) => Promise<number> {
  return async (method, apiPath, body) =>
    (
      await fetch(`${sandbox.url}${apiPath}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).status;
}
