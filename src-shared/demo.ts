/** Credentials of the built-in demo organisation (the sandbox). Not secret: they open demo data only. */
export const DEMO_CLIENT_ID = 'kid_demo';
export const DEMO_CLIENT_SECRET = 'sk_demo_satchel_sandbox';
