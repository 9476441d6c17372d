import type { CliIo } from './io';

/**
 * The streams whose last write was a status line not yet ended: the cursor stands at the end of
 * its text, and whatever is written next would be glued onto it.
 */
const open = new WeakSet<object>();

/**
 * The one line of progress a long command (sync, download, export, review mark) keeps rewriting
 * on an interactive stderr: `show` replaces its text, `clear` takes it off the screen, `end`
 * leaves its last state readable and moves below it. Not on a terminal, `show` writes nothing
 * (a log or a pipe gets no carriage returns): the command says its progress in plain lines of
 * its own there, if at all.
 */
export interface StatusLine {
  /** Whether stderr is a terminal, where the line rewrites itself. */
  readonly interactive: boolean;
  show(text: string): void;
  clear(): void;
  end(): void;
}

export function statusLine(io: Pick<CliIo, 'stderr'>): StatusLine {
  const stream = io.stderr;
  const interactive = stream.isTTY === true;
  return {
    interactive,
    show(text) {
      if (!interactive) return;
      // A line wider than the terminal wraps, and the next rewrite would clear only its last
      // row: cut to the width, so that each state replaces the last one whole.
      const width = stream.columns;
      const shown =
        width !== undefined && width > 1 && text.length >= width ? `${text.slice(0, width - 2)}…` : text;
      stream.write(`\r\x1b[2K${shown}`);
      open.add(stream);
    },
    clear() {
      if (open.delete(stream)) stream.write('\r\x1b[2K');
    },
    end() {
      endStatusLine(stream);
    },
  };
}

/**
 * Ends the status line left open on `stream`, if there is one, so that the message written next
 * (an error, a warning, the summary) starts a line of its own. `always`: the terminal itself
 * moved the cursor off the start of a line (its "^C" echo of Ctrl+C), so a line break is due
 * even if no status line is open.
 */
export function endStatusLine(stream: NodeJS.WritableStream, { always = false } = {}): void {
  if (open.delete(stream) || always) stream.write('\n');
}
