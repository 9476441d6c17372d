import { describe, expect, it } from 'vitest';
// The sync's resources (src-main) as the renderer names them: the Sync screen and the status bar.
import { allResources } from '../../src-main/sync/resources';
import { resourceLabel, resourceNoun } from '../../src-shared/sync-resources';

describe('the names of synced resources', () => {
  it('names every resource the sync pulls, on the Sync screen and in the status bar', () => {
    for (const { resource } of allResources) {
      expect(resourceLabel(resource), resource).toMatch(/^[A-Z][a-z]+( [a-z]+)*$/);
      expect(resourceNoun(resource), resource).toMatch(/^[a-z]+( [a-z]+)*$/);
    }
    expect(resourceNoun('bankAccounts')).toBe('bank accounts');
    expect(resourceLabel('bankTransactions')).toBe('Bank transactions');
  });
});
