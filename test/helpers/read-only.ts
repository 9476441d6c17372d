import { execFileSync } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';
import { afterEach } from 'vitest';

/**
 * Makes a folder read-only as a disk or share that refuses writes does, for real, and undoes it
 * after the test.
 *
 * Tests here run as root, and root ignores file permissions: `chmod a-w` would change nothing
 * SQLite or the app sees. What refuses root too is the kernel's read-only mount, so as root the
 * folder is bind-mounted onto itself and that mount made read-only (`mount --bind`, then
 * `mount -o remount,bind,ro`): every write below it fails with EROFS, as on a read-only disk,
 * for SQLite as for everything else (checked on this machine: SQLite says SQLITE_CANTOPEN or
 * SQLITE_READONLY there, `access(W_OK)` says EROFS). `chattr +i` refuses root as well but only
 * for the one file or folder it is set on, not for the files SQLite makes beside the cache.
 * Not root (a developer's machine): the permissions do refuse, so the folder and its files lose
 * their write bits instead.
 */
export function useReadOnlyFolders() {
  const undo: Array<() => void> = [];
  afterEach(() => {
    for (const step of undo.splice(0).reverse()) step();
  });
  return function makeReadOnly(folder: string): () => void {
    let undone = false;
    let restore: () => void;
    if (process.getuid?.() === 0) {
      execFileSync('mount', ['--bind', folder, folder]);
      execFileSync('mount', ['-o', 'remount,bind,ro', folder]);
      restore = () => execFileSync('umount', [folder]);
    } else {
      const mode = statSync(folder).mode;
      chmodSync(folder, mode & ~0o222);
      restore = () => chmodSync(folder, mode);
    }
    const once = () => {
      if (undone) return;
      undone = true;
      restore();
    };
    undo.push(once);
    return once;
  };
}

/**
 * Makes files immutable (`chattr +i`) and undoes it after the test: what makes a copy read-only
 * while it is open. Neither a read-only mount applied afterwards nor a changed permission stops a
 * file that is already open for writing (the kernel checks them at open; a read-only remount of
 * the mount it was opened on is refused as busy), but an immutable flag refuses every write, also
 * through an open descriptor, to root too (ext4, since Linux 5.4: EPERM). Null when not root
 * (only root may set it): the test is then skipped. As root, a file system without the flag
 * fails the test with chattr's own words.
 */
export function useImmutableFiles() {
  const undo: Array<() => void> = [];
  afterEach(() => {
    for (const step of undo.splice(0).reverse()) step();
  });
  return function makeImmutable(files: readonly string[]): (() => void) | null {
    // Only root may set the flag. Not root (a developer's machine), nothing can stand in for it
    // and the test is skipped; as root (CI) a failure to set it fails the test.
    if (process.getuid?.() !== 0) return null;
    execFileSync('chattr', ['+i', ...files], { stdio: 'pipe' });
    let undone = false;
    const once = () => {
      if (undone) return;
      undone = true;
      execFileSync('chattr', ['-i', ...files], { stdio: 'ignore' });
    };
    undo.push(once);
    return once;
  };
}
