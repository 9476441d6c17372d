import { defineConfig } from 'drizzle-kit';

// The organisation cache. Change src-main/store/tables/*, then `npx drizzle-kit generate`
// and commit the SQL it writes; the app applies it at start-up (docs/store.md).
export default defineConfig({
  dialect: 'sqlite',
  schema: './src-main/store/schema.ts',
  out: './resources/migrations/cache',
  strict: true,
  verbose: true,
});
