// Reading a profile as the library shows it (a `ProfileView`): what its
// fields mean, with their defaults, is the library's; null is a profile
// not read (yet, or because its file is broken).

import type { PatternListName, ProfileView, Section, TagState } from '../backend';

/** The groups a profile switched off (`groups.none`). */
export function groupsOff(view: ProfileView | null): string[] {
  return view?.groupsOff ?? [];
}

/** The groups a profile limits itself to (`groups` as a list, or `groups.any`). */
export function groupsOnly(view: ProfileView | null): string[] {
  return view?.groupsOnly ?? [];
}

export function tagState(view: ProfileView | null, tag: string): TagState {
  return view?.tags[tag] ?? 'ignore';
}

export function patterns(view: ProfileView | null, section: Section, list: PatternListName): string[] {
  return view?.document[section]?.[list] ?? [];
}

export function enforces(view: ProfileView | null): boolean {
  return view?.enforce ?? true;
}

export const SECTIONS: readonly Section[] = ['tools', 'resources', 'prompts'];
export const LISTS: readonly PatternListName[] = ['allow', 'deny'];
