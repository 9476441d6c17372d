/**
 * Waits until `condition` holds, looking every 10 ms, and fails naming `what` after
 * `timeoutMs`: for state the code under test reaches on its own (a job's progress, a request
 * the sandbox saw), never as a sleep.
 */
export async function until(
  condition: () => boolean,
  what = 'the condition',
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
