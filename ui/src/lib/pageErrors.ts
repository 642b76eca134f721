// Failures in the page that nothing caught (an error thrown by a handler or
// an effect, a rejected promise) are sent to the app's log: a window that
// stopped answering then leaves a trace where a person or a test looks.

import { pageError } from './backend';

/** At most this many reports a session: a failure in a loop must not flood the log. */
const MOST_REPORTS = 20;

/** Sends each distinct failure once; `report` is the shell's command (a test's fake). */
export function reportPageErrors(target: Window, report: (message: string) => Promise<unknown> = pageError): void {
  const seen = new Set<string>();
  const send = (message: string) => {
    if (seen.has(message) || seen.size >= MOST_REPORTS) return;
    seen.add(message);
    // The log being out of reach leaves nothing else to tell.
    report(message).catch(() => undefined);
  };
  target.addEventListener('error', (event: ErrorEvent) => {
    send(describe(event.error ?? event.message, event.filename ? `${event.filename}:${event.lineno}` : ''));
  });
  target.addEventListener('unhandledrejection', (event: PromiseRejectionEvent) => {
    send(describe(event.reason, 'a promise'));
  });
}

/** One line: the failure's message, where it came from, and the first frames of its stack. */
export function describe(failure: unknown, where: string): string {
  const text =
    failure instanceof Error
      ? `${failure.message}${failure.stack ? ` | ${failure.stack.split('\n').slice(0, 4).join(' | ')}` : ''}`
      : String(failure);
  return where ? `${text} (${where})` : text;
}
