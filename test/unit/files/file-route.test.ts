import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveFileRoute } from '../../../src-main/shell/file-route';

const orgA = '11111111-2222-4333-8444-555555555555';
const orgB = '99999999-8888-4777-8666-555555555555';
const file = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const root = path.resolve('/data/files');
const options = {
  filesRoot: (profileId: string) => path.join(root, profileId),
  allowed: (profileId: string) => profileId === orgA,
};

describe('satchel-file route', () => {
  it('maps an organisation’s file to its own folder', () => {
    expect(resolveFileRoute(`satchel-file://${orgA}/${file}.pdf`, options)).toEqual({
      ok: true,
      profileId: orgA,
      fileId: file,
      path: path.join(root, orgA, `${file}.pdf`),
    });
  });

  it('refuses another organisation, even one that exists', () => {
    expect(resolveFileRoute(`satchel-file://${orgB}/${file}.pdf`, options)).toMatchObject({
      ok: false,
      status: 403,
    });
  });

  it.each([
    `satchel-file://${orgA}/../${orgB}/${file}.pdf`,
    `satchel-file://${orgA}/..%2f${orgB}%2f${file}.pdf`,
    `satchel-file://${orgA}/%2e%2e/${orgB}/${file}.pdf`,
    `satchel-file://${orgA}/${orgB}/${file}.pdf`,
    `satchel-file://${orgA}/..\\${orgB}\\${file}.pdf`,
    `satchel-file://${orgA}/${file}.pdf/..`,
    `satchel-file://${orgA}/${file}`,
    `satchel-file://${orgA}/${file}.pdf?x=1`,
    `satchel-file://${orgA}/${file}.pdf#x`,
    `satchel-file://user:pw@${orgA}/${file}.pdf`,
    `satchel-file://${orgA}:80/${file}.pdf`,
    `satchel-file://${orgA}/.${file}.pdf`,
    `satchel-file://${orgA}/${file}.PDF%00.png`,
    `satchel-file://${orgA}//etc/passwd`,
    `satchel-file://../etc/${file}.pdf`,
    `satchel-file:///${orgA}/${file}.pdf`,
    `file:///etc/passwd`,
    `https://${orgA}/${file}.pdf`,
    'not a url',
  ])('refuses %s', (url) => {
    const route = resolveFileRoute(url, options);
    expect(route.ok).toBe(false);
  });

  it('never returns a path outside the organisation folder, for any one-segment name', () => {
    for (const name of ['a.pdf', 'A-1.png', `${'x'.repeat(100)}.jpg`]) {
      const route = resolveFileRoute(`satchel-file://${orgA}/${name}`, options);
      if (route.ok) expect(path.dirname(route.path)).toBe(path.join(root, orgA));
    }
  });
});
