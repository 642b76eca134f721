import { expect, it } from 'vitest';
import { BackendError, messageOf, profileEdit, serversImportPreview, setBackend } from '.';
import { aView, FakeBackend } from './fake';

it('calls the shell by its command names with camelCase arguments', async () => {
  const fake = new FakeBackend()
    .on('profile_edit', () => aView())
    .on('servers_import_preview', ({ host }) => ({ source: host, added: [], renamed: [], skipped: [], secrets: [] }));
  setBackend(fake);
  await profileEdit('work', { op: 'setTool', exposedName: 'gh__x', on: false });
  await serversImportPreview('vscode');
  expect(fake.calls).toEqual([
    { command: 'profile_edit', args: { name: 'work', edit: { op: 'setTool', exposedName: 'gh__x', on: false } } },
    { command: 'servers_import_preview', args: { host: 'vscode', path: undefined } },
  ]);
});

it("turns the shell's {code, message, field} into a BackendError", async () => {
  setBackend(new FakeBackend().fail('profile_edit', { code: 'invalid', message: 'bad glob', field: 'tools.deny' }));
  const error = await profileEdit('x', { op: 'setEnforce', enforce: true }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BackendError);
  expect(error).toMatchObject({ code: 'invalid', message: 'bad glob', field: 'tools.deny' });
});

it("turns Tauri's own string rejections into a sentence too", async () => {
  const fake = new FakeBackend().on('profile_edit', () => Promise.reject('command profile_edit not found'));
  setBackend(fake);
  const error = await profileEdit('x', { op: 'setEnforce', enforce: true }).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: 'unknown', message: 'command profile_edit not found' });
  expect(messageOf(new Error('plain'))).toBe('plain');
});
