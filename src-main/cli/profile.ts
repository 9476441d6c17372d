import { parseArgs } from 'node:util';
import { DEMO_CLIENT_ID, DEMO_CLIENT_SECRET } from '../../src-shared/demo';
import { UNCHECKED_CONNECTION, UNCHECKED_KEY } from '../../src-shared/profiles';
import { organisationLine, planSummary, resultSummary, untiedLine } from '../../src-shared/recovery-text';
import { AppError } from '../../src-shared/errors';
import { BaseUrl, ProfileName, type RecoveryPlan } from '../../src-shared/profiles';
import type { Core } from '../core';
import { chooseProfile } from './filters';
import { namingOption, promptHidden, shellWord, readAll, table, typedAt, UsageError, type CliIo } from './io';

/** The option of each profile field the core may refuse. */
const OPTIONS = { name: 'name', baseUrl: 'url', profile: null };

/**
 * `--name` and `--url` checked as the core checks them, before any secret is asked for: nobody
 * should type a secret only to hear the address was mistyped.
 */
function checkNameAndUrl(values: { name?: string | undefined; url?: string | undefined }): void {
  for (const [option, schema, value] of [
    ['name', ProfileName, values.name],
    ['url', BaseUrl, values.url],
  ] as const) {
    if (value === undefined) continue;
    const parsed = schema.safeParse(value);
    if (!parsed.success)
      throw new UsageError(`--${option}: ${parsed.error.issues[0]?.message ?? 'not valid'}`);
  }
}

export const profileUsage = `satchel profile add --name N --url URL --client-id ID [--client-secret-stdin]
satchel profile add --name N --url URL --token-stdin
satchel profile add --name N --demo --url SANDBOX_URL [--client-id ID]
satchel profile list [--json]
satchel profile rename NAME_OR_ID --name NEW
satchel profile set-url NAME_OR_ID --url URL
satchel profile set-key NAME_OR_ID --client-id ID [--client-secret-stdin] | --token-stdin
satchel profile remove NAME_OR_ID [--force]
satchel profile rebuild [--profile NAME_OR_ID]
satchel profile recover [--yes] [--json]`;

/**
 * The secret, never from an argument (shell history, the process list): typed at a hidden
 * prompt when a person is at the terminal, else read whole from standard input with the
 * `--…-stdin` option, else from the environment `variable`.
 */
async function secretFrom(io: CliIo, fromStdin: boolean, variable: string, what: string): Promise<string> {
  const secret =
    fromStdin || (!io.env[variable] && typedAt(io))
      ? typedAt(io)
        ? await promptHidden(io, `${what[0]!.toUpperCase()}${what.slice(1)} (not shown): `)
        : (await readAll(io.stdin)).replace(/\r?\n$/, '')
      : io.env[variable];
  if (!secret)
    throw new UsageError(
      `give the ${what} on standard input (--${what === 'token' ? 'token' : 'client-secret'}-stdin) or in ${variable}`,
    );
  return secret;
}

/** A token connection: asked for with --token-stdin, or a token in SATCHEL_TOKEN and no client id. */
function wantsToken(
  io: CliIo,
  values: { 'token-stdin': boolean; 'client-id'?: string | undefined; demo?: boolean },
): boolean {
  return values['token-stdin'] || (!values['client-id'] && !values.demo && Boolean(io.env['SATCHEL_TOKEN']));
}

/**
 * The options each action takes. The actions share one parser, so an option of another action
 * (`profile add --json`) would parse and be ignored, and the user believe it did something:
 * refused instead, as any other command refuses an option it does not know.
 */
const ACTION_OPTIONS: Record<string, readonly string[]> = {
  add: ['name', 'url', 'client-id', 'client-secret-stdin', 'token-stdin', 'demo'],
  list: ['json'],
  rename: ['name'],
  'set-url': ['url'],
  'set-key': ['client-id', 'client-secret-stdin', 'token-stdin'],
  remove: ['force'],
  rebuild: ['profile'],
  recover: ['yes', 'json'],
};

function refuseOtherOptions(action: string, tokens: ReadonlyArray<{ kind: string; name?: string }>): void {
  const takes = ACTION_OPTIONS[action];
  if (!takes) return;
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name === undefined || takes.includes(token.name)) continue;
    // A change's result is said on stderr; the organisations as JSON are the list's.
    const json =
      token.name === 'json'
        ? '; only "satchel profile list --json" and "satchel profile recover --json" give JSON'
        : '';
    throw new UsageError(`profile ${action} takes no --${token.name}${json}`);
  }
}

export async function profileCommand(core: Core, args: string[], io: CliIo): Promise<void> {
  try {
    await profileAction(core, args, io);
  } catch (error) {
    throw namingOption(error, OPTIONS);
  }
}

async function profileAction(core: Core, args: string[], io: CliIo): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals, tokens } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    tokens: true,
    options: {
      name: { type: 'string' },
      url: { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret-stdin': { type: 'boolean', default: false },
      'token-stdin': { type: 'boolean', default: false },
      demo: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      yes: { type: 'boolean', default: false },
      profile: { type: 'string' },
    },
  });
  if (action !== undefined) refuseOtherOptions(action, tokens);
  switch (action) {
    case 'add': {
      if (!values.name || !values.url) throw new UsageError('profile add needs --name and --url');
      checkNameAndUrl(values);
      // Before the secret is asked for: nobody should type it only to hear an option was missing.
      if (!wantsToken(io, values) && !values['client-id'] && !values.demo)
        throw new UsageError('profile add needs --client-id (or --token-stdin)');
      const auth = wantsToken(io, values)
        ? {
            kind: 'token' as const,
            accessToken: await secretFrom(io, values['token-stdin'], 'SATCHEL_TOKEN', 'token'),
          }
        : {
            kind: 'client' as const,
            clientId: values['client-id'] ?? (values.demo ? DEMO_CLIENT_ID : ''),
            clientSecret:
              values.demo && !values['client-secret-stdin'] && !io.env['SATCHEL_CLIENT_SECRET']
                ? DEMO_CLIENT_SECRET
                : await secretFrom(
                    io,
                    values['client-secret-stdin'],
                    'SATCHEL_CLIENT_SECRET',
                    'client secret',
                  ),
          };
      const profile = await core.addProfile({
        name: values.name,
        baseUrl: values.url,
        auth,
        demo: values.demo,
      });
      io.stderr.write(`Connected "${profile.name}" (${profile.baseUrl}).\n`);
      if (!profile.checked) io.stderr.write(`${UNCHECKED_CONNECTION}\n`);
      return;
    }
    case 'list': {
      const profiles = core.profiles.list();
      if (values.json) {
        io.stdout.write(`${JSON.stringify(profiles, null, 2)}\n`);
      } else if (profiles.length === 0) {
        io.stderr.write('No organisation is connected. Add one with "satchel profile add".\n');
      } else {
        io.stdout.write(
          table([
            ['NAME', 'URL', 'AUTH', 'ID'],
            ...profiles.map((p) => [p.name, p.baseUrl, p.demo ? 'demo' : p.authKind, p.id]),
          ]),
        );
      }
      return;
    }
    case 'rename': {
      const [which] = positionals;
      if (!which || !values.name) throw new UsageError('profile rename needs the profile and --name');
      checkNameAndUrl(values);
      const profile = core.profiles.rename(core.profiles.get(which).id, values.name);
      io.stderr.write(`Renamed to "${profile.name}".\n`);
      return;
    }
    case 'set-url': {
      const [which] = positionals;
      if (!which || !values.url) throw new UsageError('profile set-url needs the profile and --url');
      checkNameAndUrl(values);
      const profile = core.profiles.moveTo(core.profiles.get(which).id, values.url);
      core.sync.forget(profile.id);
      io.stderr.write(`"${profile.name}" now connects to ${profile.baseUrl}; its offline copy is kept.\n`);
      return;
    }
    case 'set-key': {
      const [which] = positionals;
      if (!which) throw new UsageError('profile set-key needs the profile name or id');
      const current = core.profiles.get(which);
      if (!wantsToken(io, values) && !values['client-id'])
        throw new UsageError('profile set-key needs --client-id (or --token-stdin)');
      const auth = wantsToken(io, values)
        ? {
            kind: 'token' as const,
            accessToken: await secretFrom(io, values['token-stdin'], 'SATCHEL_TOKEN', 'token'),
          }
        : {
            kind: 'client' as const,
            clientId: values['client-id'] ?? '',
            clientSecret: await secretFrom(
              io,
              values['client-secret-stdin'],
              'SATCHEL_CLIENT_SECRET',
              'client secret',
            ),
          };
      // Checked with the API first, as Settings' "New key…" does: a refused key changes nothing
      // (exit 1); with no answer (offline) the new key is kept, since the old one is what failed.
      const profile = await core.reauthenticateProfile(current.id, auth);
      io.stderr.write(`New credentials for "${profile.name}" are in the keychain.\n`);
      if (!profile.checked) io.stderr.write(`${UNCHECKED_KEY}\n`);
      return;
    }
    case 'remove': {
      const [which] = positionals;
      if (!which) throw new UsageError('profile remove needs the profile name or id');
      const profile = core.profiles.get(which);
      // Unsent edits and review marks exist only in this offline copy: removing it loses them.
      const { edits, marks } = core.localWork(profile.id);
      if ((edits > 0 || marks > 0) && !values.force)
        throw new AppError(
          'VALIDATION_ERROR',
          `"${profile.name}" holds ${[
            ...(edits > 0 ? [`${edits} unsent ${edits === 1 ? 'edit' : 'edits'}`] : []),
            ...(marks > 0 ? [`${marks} review ${marks === 1 ? 'mark' : 'marks'}`] : []),
          ].join(
            ' and ',
          )} that only this offline copy has. Send the edits ("satchel edits push") and export the marks ("satchel review export"), or remove it with --force.`,
        );
      await core.removeProfile(profile.id);
      io.stderr.write(`Removed "${profile.name}", its cache and its keychain entry.\n`);
      return;
    }
    case 'rebuild': {
      if (positionals.length > 0)
        throw new UsageError('profile rebuild takes the organisation as --profile NAME_OR_ID');
      const profile = chooseProfile(core, values.profile);
      // Refused (exit 1, the core's words) for a copy that opens: there is nothing to rebuild.
      const { setAside, kept } = await core.rebuildCache(profile.id);
      io.stderr.write(
        `Set the offline copy of "${profile.name}" aside as ${setAside} (nothing was deleted) and started a fresh one, ${keptText(kept)}.\n` +
          `Run "satchel sync --profile ${shellWord(profile.name)}" to fill it.\n`,
      );
      return;
    }
    case 'recover': {
      if (positionals.length > 0) throw new UsageError('profile recover takes no organisation');
      // Refused (exit 1, the core's words) when the list reads: there is nothing to recover.
      // It never asks: without --yes it only says what it would do, with --json too (the plan
      // on stdout, `recovered: false`), so a script can read the plan and then decide.
      if (!values.yes) {
        const plan = await core.recoveryPlan();
        if (values.json) io.stdout.write(recoveryJson(plan, null));
        io.stderr.write(
          [
            planSummary(plan),
            ...plan.organisations.map(
              (organisation) => `  ${organisationLine(organisation, setKey(organisation.name))}`,
            ),
            ...[untiedLine(plan)].filter((line) => line !== null),
            'Nothing was changed. Run "satchel profile recover --yes" to do it.',
          ].join('\n') + '\n',
        );
        return;
      }
      const result = await core.recoverProfiles();
      if (values.json) io.stdout.write(recoveryJson(result, result.setAside));
      io.stderr.write(
        [
          resultSummary(result),
          ...result.organisations.map(
            (organisation) => `  ${organisationLine(organisation, setKey(organisation.name))}`,
          ),
          ...[untiedLine(result)].filter((line) => line !== null),
        ].join('\n') + '\n',
      );
      return;
    }
    default:
      throw new UsageError(`unknown profile action "${action ?? ''}"`);
  }
}

/**
 * `profile recover --json` on stdout: the plan, or what was done, in one shape, `recovered`
 * saying which (and `setAside`, the damaged list's new path, null until it is done). Each
 * organisation says whether the keychain has its key (`keyFound`, null when it could not be
 * asked) and the unsent edits and review marks of its copy.
 */
function recoveryJson(plan: RecoveryPlan, setAside: string | null): string {
  const { listFile, cachesFolder, organisations, untied, keychainProblem } = plan;
  const recovered = setAside !== null;
  return `${JSON.stringify({ recovered, setAside, listFile, cachesFolder, organisations, untied, keychainProblem }, null, 2)}\n`;
}

/** Where the command line enters a key again. */
const setKey = (name: string) => `with "satchel profile set-key ${shellWord(name)} --client-id ID"`;

/** What a rebuild kept of the user's own work, said for a person. */
function keptText(kept: { edits: number; marks: number; tags: number }): string {
  const parts = [
    [kept.edits, 'unsent edit', 'unsent edits'],
    [kept.marks, 'review mark', 'review marks'],
    [kept.tags, 'tag', 'tags'],
  ] as const;
  const said = parts
    .filter(([count]) => count > 0)
    .map(([count, one, many]) => `${count} ${count === 1 ? one : many}`);
  if (said.length === 0) return 'keeping nothing: no unsent edit, review mark or tag could be read from it';
  return `keeping ${said.length === 1 ? said[0] : `${said.slice(0, -1).join(', ')} and ${said.at(-1)}`} it still held`;
}
