import { counted as count } from './counted';
import type { RecoverableOrganisation, RecoveryPlan } from './profiles';

/**
 * "Recover organisations" in words, the same in the window and on the command line: what it
 * will do (the confirmation) and what it did.
 */

/**
 * One organisation listed again: its copy, the work in it, its key; `enterKey` says where a
 * missing key is entered again (the window's Settings, the command line's `profile set-key`).
 */
export function organisationLine(
  organisation: RecoverableOrganisation,
  enterKey = 'in Settings (New key…)',
): string {
  const work =
    organisation.edits + organisation.marks === 0
      ? 'no unsent edits or review marks'
      : `${count(organisation.edits, 'unsent edit', 'unsent edits')} and ${count(organisation.marks, 'review mark', 'review marks')}`;
  const key =
    organisation.keyFound === true
      ? 'its key is in the keychain'
      : organisation.keyFound === false
        ? `the keychain has no key for it: enter it again ${enterKey}`
        : 'whether the keychain has its key is checked by its first sync';
  return `${organisation.name} (${organisation.baseUrl}), offline copy ${organisation.file} with ${work}; ${key}.`;
}

/** The files of the caches folder left as they are, or null when there are none. */
export function untiedLine(plan: RecoveryPlan): string | null {
  const n = plan.untied.length;
  if (n === 0) return null;
  return `${n === 1 ? 'This file' : `These ${n} files`} in ${plan.cachesFolder} cannot be tied to an organisation and ${n === 1 ? 'stays where it is' : 'stay where they are'}, nothing deleted: ${plan.untied.join(', ')}.`;
}

/** What recovering will do, before it is done. */
export function planSummary(plan: RecoveryPlan): string {
  const aside = `The damaged list ${plan.listFile} will be renamed beside itself (nothing is deleted)`;
  if (plan.organisations.length === 0)
    return `${aside} and a new, empty list started: no offline copy records its connection. The offline copies stay in ${plan.cachesFolder}.`;
  return `${aside} and a new list written with ${count(plan.organisations.length, 'organisation', 'organisations')} found in ${plan.organisations.length === 1 ? 'its offline copy' : 'their offline copies'}, each with its copy, its unsent edits and review marks as they are:`;
}

/** What recovering did, after it was done. */
export function resultSummary(plan: RecoveryPlan & { setAside: string }): string {
  const aside = `Set the damaged list of organisations aside as ${plan.setAside} (nothing was deleted)`;
  if (plan.organisations.length === 0)
    return `${aside} and started an empty list: no offline copy records its connection. The offline copies stay in ${plan.cachesFolder}.`;
  return `${aside} and listed ${count(plan.organisations.length, 'organisation', 'organisations')} again from ${plan.organisations.length === 1 ? 'its offline copy' : 'their offline copies'}:`;
}
