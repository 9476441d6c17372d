import { describe, expect, it } from 'vitest';
// A pure helper of the renderer (Intl only, no DOM); the main-process boundary does not apply.
// eslint-disable-next-line no-restricted-imports
import {
  checkOutcome,
  failureText,
  formatByteSize,
  formatClock,
  formatDuration,
  formatRate,
  joinPath,
  percentDone,
  progressAnnouncement,
  shownRate,
  filesOf,
} from '../../src-renderer/features/files/format';

// The Files area's sizes, rates, times left and live-region text, pinned to two locales.

describe('file sizes and rates', () => {
  it('steps by 1024 with one decimal below ten units', () => {
    expect(formatByteSize(0, 'en-US')).toBe('0 bytes');
    expect(formatByteSize(1, 'en-US')).toBe('1 byte');
    expect(formatByteSize(615, 'en-US')).toBe('615 bytes');
    expect(formatByteSize(1023, 'en-US')).toBe('1,023 bytes');
    expect(formatByteSize(1536, 'en-US')).toBe('1.5 kB');
    expect(formatByteSize(12.4 * 1024 ** 2, 'en-US')).toBe('12 MB');
    expect(formatByteSize(2 * 1024 ** 3, 'en-US')).toBe('2 GB');
    expect(formatByteSize(1.5 * 1024 ** 2, 'de-DE')).toBe('1,5 MB');
    expect(formatByteSize(-5, 'en-US')).toBe('0 bytes');
  });

  it('writes rates per second', () => {
    expect(formatRate(0, 'en-US')).toBe('0 byte/s');
    expect(formatRate(1.2 * 1024 ** 2, 'en-US')).toBe('1.2 MB/s');
    expect(formatRate(500 * 1024, 'en-US')).toBe('500 kB/s');
  });

  it('shows no rate while nothing comes over the network', () => {
    expect(shownRate(0, 'en-US')).toBeNull();
    expect(shownRate(Number.NaN, 'en-US')).toBeNull();
    expect(shownRate(Number.POSITIVE_INFINITY, 'en-US')).toBeNull();
    expect(shownRate(615, 'en-US')).toBe('615 byte/s');
  });
});

describe('time left', () => {
  it('keeps the precision a person plans with', () => {
    expect(formatDuration(0, 'en-US')).toBe('0 sec');
    expect(formatDuration(44.6, 'en-US')).toBe('45 sec');
    expect(formatDuration(60, 'en-US')).toBe('1 min');
    expect(formatDuration(125, 'en-US')).toBe('2 min 5 sec');
    expect(formatDuration(700, 'en-US')).toBe('11 min');
    expect(formatDuration(3600, 'en-US')).toBe('1 hr');
    expect(formatDuration(3600 + 5 * 60 + 9, 'en-US')).toBe('1 hr 5 min');
    expect(formatDuration(2 * 86_400 + 3 * 3600, 'en-US')).toBe('2 days 3 hr');
    expect(formatDuration(-3, 'en-US')).toBe('0 sec');
    expect(formatDuration(125, 'de-DE')).toBe('2 Min., 5 Sek.');
  });

  it('shows the time a rate-limit wait ends with seconds', () => {
    expect(formatClock('2026-11-23T14:05:30.000Z', 'en-GB', 'UTC')).toBe('14:05:30');
    expect(formatClock('not a time', 'en-GB', 'UTC')).toBe('not a time');
  });
});

describe('progress', () => {
  it('never says 100 percent before the last file', () => {
    expect(percentDone(0, 0)).toBe(0);
    expect(percentDone(1999, 2000)).toBe(99);
    expect(percentDone(2000, 2000)).toBe(100);
    expect(percentDone(500, 2000)).toBe(25);
  });

  it('announces tenths and status changes, not every event', () => {
    const at = (done: number) => progressAnnouncement('running', done, 2071, 'en-US');
    expect(at(210)).toBe(at(400));
    expect(at(400)).not.toBe(at(420));
    expect(at(420)).toBe('Downloading: 20 percent of 2,071 files.');
    expect(progressAnnouncement('paused', 420, 2071, 'en-US')).toBe('Download paused: 420 of 2,071 files.');
    expect(progressAnnouncement('completed', 2071, 2071, 'en-US')).toBe(
      'Download finished: 2,071 of 2,071 files.',
    );
    // One file is a file: "1 of 1 files" was said and shown.
    expect(progressAnnouncement('completed', 1, 1, 'en-US')).toBe('Download finished: 1 of 1 file.');
    expect(progressAnnouncement('running', 0, 1, 'en-US')).toBe('Downloading: 0 percent of 1 file.');
    expect(filesOf(0, 1, 'de-DE')).toBe('0 of 1 file');
    expect(filesOf(1200, 2071, 'de-DE')).toBe('1.200 of 2.071 files');
  });

  it('joins a manifest path with the destination’s own separator', () => {
    expect(joinPath('/home/ana/Audit', 'manifest.csv')).toBe('/home/ana/Audit/manifest.csv');
    expect(joinPath('/home/ana/Audit/', '2026-03/a.pdf')).toBe('/home/ana/Audit/2026-03/a.pdf');
    expect(joinPath('C:\\Audit', '2026-03/a.pdf')).toBe('C:\\Audit\\2026-03\\a.pdf');
  });
});

describe('why a file failed', () => {
  it('counts the attempts only where the reason does not', () => {
    expect(
      failureText(
        'File f1 arrived damaged (its sha256 does not match) (gave up after 3 attempts).',
        3,
        'en-US',
      ),
    ).toBe('File f1 arrived damaged (its sha256 does not match) (gave up after 3 attempts).');
    expect(failureText('A different file is already at a.pdf; move it away, then retry.', 0, 'en-US')).toBe(
      'A different file is already at a.pdf; move it away, then retry.',
    );
    expect(failureText('The file is gone from the server.', 1, 'en-US')).toBe(
      'The file is gone from the server. (1 attempt)',
    );
  });
});

describe('what Check folder found', () => {
  const found = { missing: 0, done: 2071, failed: 0, waitingForNetwork: false };
  it('says every file is there, with the failed ones apart', () => {
    expect(checkOutcome(found, 'en-US')).toBe('All 2,071 files are in the folder.');
    expect(checkOutcome({ ...found, done: 1 }, 'en-US')).toBe('The file is in the folder.');
    expect(checkOutcome({ ...found, done: 9, failed: 1 }, 'en-US')).toBe(
      'All 9 files downloaded are in the folder; 1 file failed (Retry all failed fetches them).',
    );
  });
  it('counts the missing files, and says when they wait for the network', () => {
    expect(checkOutcome({ ...found, missing: 2 }, 'en-US')).toBe(
      '2 files were not in the folder as downloaded: they are fetched again.',
    );
    expect(checkOutcome({ ...found, missing: 1300, waitingForNetwork: true }, 'de-DE')).toBe(
      '1.300 files were not in the folder as downloaded: they are fetched again once the network is back.',
    );
    expect(checkOutcome({ ...found, missing: 1 }, 'en-US')).toBe(
      '1 file was not in the folder as downloaded: it is fetched again.',
    );
  });
});
