import { describe, expect, it } from 'vitest';
import { interruptHandled, onInterrupt, type CliIo } from '../../../src-main/cli/io';

// What decides a Ctrl+C on the command line: while a command has a stop registered, the first
// Ctrl+C aborts the signal and the command winds down; with none (a prompt waiting for its
// input, a search), the process ends at once.

function ioWith(signal?: AbortSignal): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: {},
    ...(signal ? { signal } : {}),
  };
}

describe('onInterrupt', () => {
  it('holds Ctrl+C for the command while registered, and calls its stop once', () => {
    const controller = new AbortController();
    const io = ioWith(controller.signal);
    expect(interruptHandled()).toBe(false);
    let stops = 0;
    const releaseDownload = onInterrupt(io, () => (stops += 1));
    const releasePush = onInterrupt(io, () => undefined);
    expect(interruptHandled()).toBe(true);
    releasePush();
    releasePush(); // a second release changes nothing
    expect(interruptHandled()).toBe(true);
    controller.abort();
    controller.abort();
    expect(stops).toBe(1);
    releaseDownload();
    expect(interruptHandled()).toBe(false);
  });

  it('stops at once when the command was interrupted before it registered', () => {
    const controller = new AbortController();
    controller.abort();
    let stops = 0;
    const release = onInterrupt(ioWith(controller.signal), () => (stops += 1));
    expect(stops).toBe(1);
    expect(interruptHandled()).toBe(false);
    release();
    expect(interruptHandled()).toBe(false);
  });

  it('does nothing without a signal (the CLI run in-process)', () => {
    let stops = 0;
    const release = onInterrupt(ioWith(), () => (stops += 1));
    expect(interruptHandled()).toBe(false);
    release();
    expect(stops).toBe(0);
  });

  it('no longer calls a released stop', () => {
    const controller = new AbortController();
    let stops = 0;
    onInterrupt(ioWith(controller.signal), () => (stops += 1))();
    controller.abort();
    expect(stops).toBe(0);
  });
});
