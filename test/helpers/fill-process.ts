import { createCore } from '../../src-main/core';

/**
 * The app's fill of an organisation's offline file cache, in a process of its own: for tests
 * of two processes on one data folder (the app's window and the command line). The core is
 * the app's, on the folder's profiles, with the default keychain service (as the CLI reads
 * it). Prints the fill's result as JSON when it ends.
 *
 *   node --import tsx test/helpers/fill-process.ts DATA_DIR PROFILE_ID
 */
const [dataDir, profileId] = process.argv.slice(2);
if (!dataDir || !profileId) throw new Error('usage: fill-process.ts DATA_DIR PROFILE_ID');
const core = createCore({ dataDir });
try {
  process.stdout.write(JSON.stringify(await core.files.fillOffline(profileId)));
} finally {
  await core.close();
}
