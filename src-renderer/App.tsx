import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { AppInfo, Notice, OnlineState } from '../src-shared/ipc';
import { UNCHECKED_CONNECTION } from '../src-shared/profiles';
import { areas, type AreaId } from './areas';
import { Sidebar } from './components/Sidebar';
import { ShortcutsDialog } from './components/ShortcutsDialog';
import { StatusBar } from './components/StatusBar';
import { AreaView } from './features/AreaView';
import type { Opening } from './features/attention/groups';
import { DamagedCache } from './features/connect/DamagedCache';
import { DamagedList } from './features/connect/DamagedList';
import { ReadOnlyBanner } from './features/connect/ReadOnlyBanner';
import { FirstRun } from './features/connect/FirstRun';
import { OrganisationSwitcher } from './components/OrganisationSwitcher';
import { chooseProfile, readChosenProfile, storeChosenProfile } from './lib/profile-choice';
import { focusAreaWhenShown } from './lib/area-focus';
import { focusSearch, isPlainKey } from './lib/keys';
import { invalidateOnEvents } from './lib/live';
import { PlatformContext } from './lib/platform';
import { ReadOnlyContext } from './lib/read-only';
import { useCommand } from './lib/query';
import { call } from './lib/satchel';

/** Whether a modal dialog is open (shortcuts help, export, download): the page behind waits. */
function modalOpen(): boolean {
  return document.querySelector('dialog[open]') !== null;
}

type InfoState =
  { status: 'loading' } | { status: 'ready'; info: AppInfo } | { status: 'failed'; message: string };

export function App() {
  const [area, setArea] = useState<AreaId>('transactions');
  const [info, setInfo] = useState<InfoState>({ status: 'loading' });
  const [notice, setNotice] = useState<Notice | null>(null);
  const [online, setOnline] = useState<OnlineState | null>(null);
  const [help, setHelp] = useState(false);
  const [chosenId, setChosenId] = useState<string | null>(readChosenProfile);
  // Counts the area changes made by key, each of which puts the focus in the new area.
  const [landings, setLandings] = useState(0);
  // A list opened from "Needs attention": its area starts with that search applied.
  const [opening, setOpening] = useState<
    (Opening & { serial: number; profileId: string | undefined }) | null
  >(null);
  const client = useQueryClient();
  const profiles = useCommand('profiles.list', {});
  const profileList = profiles.data?.profiles ?? [];
  // The organisation shown: the one chosen last, or the first when it was removed.
  const profile = chooseProfile(profileList, chosenId);
  // Remember the organisation shown (also a fallback), so the next start asks for its rows at once.
  useEffect(() => {
    if (profile && profile.id !== readChosenProfile()) storeChosenProfile(profile.id);
  }, [profile]);
  const go = (target: AreaId) => {
    setOpening(null);
    setArea(target);
  };
  const choose = (id: string) => {
    storeChosenProfile(id);
    setChosenId(id);
    // What was opened belongs to the old organisation; each area starts afresh (keyed by id).
    setOpening(null);
  };
  const open = (next: Opening) => {
    setOpening((current) => ({ ...next, profileId: profile?.id, serial: (current?.serial ?? 0) + 1 }));
    setArea(next.area);
    setLandings((count) => count + 1);
  };
  const firstRun = profiles.data !== undefined && profiles.data.profiles.length === 0 && area !== 'settings';
  // A list that cannot be read is said as such, never as "nothing connected" (docs/screens.md).
  const listProblem = profiles.error ? profiles.error.message : null;
  // An organisation whose offline copy cannot be opened shows why in place of its areas; Settings
  // (to remove it, or change its key) and the other organisations stay open.
  const cacheStatus = useCommand(
    'profiles.cacheStatus',
    { id: profile?.id ?? '' },
    { enabled: profile !== null && profile !== undefined },
  );
  const cacheProblem = profile ? (cacheStatus.data?.problem ?? null) : null;
  // A copy that opened but cannot be written: its areas read as usual, under a banner that says
  // why, and the controls that would write are off with that reason (docs/screens.md).
  const readOnly = profile && !cacheProblem ? (cacheStatus.data?.readOnly ?? null) : null;
  // The first connection (the demo, or Connect on the first screen) takes the welcome screen
  // away with the button pressed: the focus goes to the area shown instead of the page.
  const connected = profiles.data !== undefined && profiles.data.profiles.length > 0;
  const wasConnected = useRef<boolean | null>(null);
  useEffect(() => {
    if (profiles.data === undefined) return;
    if (wasConnected.current === false && connected) setLandings((count) => count + 1);
    wasConnected.current = connected;
  }, [connected, profiles.data]);

  useEffect(() => {
    let live = true;
    call('app.info', {}).then(
      (value) => live && setInfo({ status: 'ready', info: value }),
      (error: unknown) =>
        live &&
        setInfo({ status: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
    call('app.online', {}).then(
      (value) => live && setOnline(value),
      () => undefined,
    );
    const stops = [
      window.satchel.on('app.notice', setNotice),
      window.satchel.on('app.online', setOnline),
      // The native menu's Go items (on macOS Cmd+1…8 arrive this way, not as key presses).
      window.satchel.on('app.menu', ({ action }) => {
        // A modal dialog keeps the page behind it as it is until it is closed.
        if (modalOpen()) return;
        const target = areas.find((candidate) => `go.${candidate.id}` === action);
        if (target) {
          setOpening(null);
          setArea(target.id);
          setLandings((count) => count + 1);
        }
        if (action === 'search.focus') focusSearch();
        if (action === 'help.shortcuts') setHelp(true);
      }),
      // A connection the first screen added unchecked is checked by a sync that read something:
      // the note that it could not be checked no longer holds.
      window.satchel.on('sync.finished', ({ outcome }) => {
        if (outcome === 'succeeded' || outcome === 'partial')
          setNotice((current) => (current?.message === UNCHECKED_CONNECTION ? null : current));
      }),
      invalidateOnEvents(client),
    ];
    return () => {
      live = false;
      for (const stop of stops) stop();
    };
  }, [client]);

  useEffect(() => {
    // Ctrl/Cmd + 1…8 jumps to an area from anywhere but a modal dialog.
    const onKey = (event: KeyboardEvent) => {
      // "/" searches and "?" lists the shortcuts, unless the user is typing.
      if (isPlainKey(event) && (event.key === '/' || event.key === '?')) {
        if (modalOpen()) return;
        event.preventDefault();
        if (event.key === '/') focusSearch();
        else setHelp(true);
        return;
      }
      if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
      const target = areas.find((candidate) => candidate.key === event.key);
      if (!target) return;
      event.preventDefault();
      // Not behind a modal dialog: the area it belongs to stays, and so does the focus it returns.
      if (modalOpen()) return;
      setOpening(null);
      setArea(target.id);
      setLandings((count) => count + 1);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    const content = document.getElementById('content');
    if (landings === 0 || !content) return;
    return focusAreaWhenShown(content);
  }, [landings]);

  return (
    <PlatformContext.Provider value={info.status === 'ready' ? info.info.platform : null}>
      <div className="shell">
        <Sidebar
          current={area}
          onSelect={go}
          profileId={firstRun || cacheProblem ? undefined : profile?.id}
          header={<OrganisationSwitcher profiles={profileList} current={profile} onChoose={choose} />}
        />
        <main className="content" id="content" aria-labelledby="area-title">
          {listProblem !== null ? (
            <DamagedList message={listProblem} onRetry={() => void profiles.refetch()} />
          ) : cacheProblem && profile && area !== 'settings' ? (
            <DamagedCache
              profile={profile}
              problem={cacheProblem}
              onSettings={() => go('settings')}
              onRebuilt={({ setAside, kept }) => {
                const keptText =
                  kept.edits + kept.marks === 0
                    ? 'no unsent edits or review marks could be kept'
                    : `kept ${kept.edits} unsent edit${kept.edits === 1 ? '' : 's'} and ${kept.marks} review mark${kept.marks === 1 ? '' : 's'}`;
                setNotice({
                  level: 'info',
                  message: `The damaged offline copy of ${profile.name} is set aside as ${setAside.split(/[\\/]/).pop() ?? setAside}; ${keptText}. Syncing again.`,
                  at: new Date().toISOString(),
                });
                setLandings((count) => count + 1);
              }}
            />
          ) : firstRun ? (
            <FirstRun
              onConnected={({ checked }) => {
                // The first screen goes with the connection; the status bar says it is unchecked.
                if (!checked)
                  setNotice({
                    level: 'warning',
                    message: UNCHECKED_CONNECTION,
                    at: new Date().toISOString(),
                  });
              }}
            />
          ) : (
            <ReadOnlyContext.Provider value={readOnly?.message ?? null}>
              {readOnly && profile && (
                <ReadOnlyBanner key={profile.id} profileId={profile.id} message={readOnly.message} />
              )}
              <AreaView
                area={area}
                info={info.status === 'ready' ? info.info : null}
                profile={profile}
                opening={opening?.area === area && opening.profileId === profile?.id ? opening : null}
                onOpen={open}
                onGo={go}
              />
            </ReadOnlyContext.Provider>
          )}
        </main>
        <StatusBar info={info} notice={notice} online={online} profile={cacheProblem ? null : profile} />
        {help && <ShortcutsDialog onClose={() => setHelp(false)} />}
      </div>
    </PlatformContext.Provider>
  );
}
