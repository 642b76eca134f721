import { describe as group, expect, it } from 'vitest';
import { describe, reportPageErrors } from './pageErrors';

group('failures in the page', () => {
  it('reports each distinct failure once, and a rejected promise too', () => {
    const target = new EventTarget() as unknown as Window;
    const sent: string[] = [];
    reportPageErrors(target, async (message) => sent.push(message));
    const boom = new Error('effect_update_depth_exceeded');
    target.dispatchEvent(Object.assign(new Event('error'), { error: boom, message: boom.message, filename: 'app.js', lineno: 7 }));
    target.dispatchEvent(Object.assign(new Event('error'), { error: boom, message: boom.message, filename: 'app.js', lineno: 7 }));
    target.dispatchEvent(Object.assign(new Event('unhandledrejection'), { reason: 'no answer' }));
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(/^effect_update_depth_exceeded \| Error: effect_update_depth_exceeded.*\(app\.js:7\)$/);
    expect(sent[1]).toBe('no answer (a promise)');
  });

  it('stops after twenty reports, so a failing loop does not flood the log', () => {
    const target = new EventTarget() as unknown as Window;
    const sent: string[] = [];
    reportPageErrors(target, async (message) => sent.push(message));
    for (let n = 0; n < 50; n += 1) {
      target.dispatchEvent(Object.assign(new Event('unhandledrejection'), { reason: `failure ${n}` }));
    }
    expect(sent).toEqual(Array.from({ length: 20 }, (_, n) => `failure ${n} (a promise)`));
  });

  it('says what a thrown value that is not an Error was', () => {
    expect(describe({ toString: () => 'odd' }, '')).toBe('odd');
  });
});
