// Reading a profile document (DESIGN §2), whose fields are all optional
// and whose `groups` has two shapes.

import type { PatternListName, Profile, Section, TagState } from '../backend';

/** The groups a profile switched off (`groups.none`). */
export function groupsOff(profile: Profile | null): string[] {
  const groups = profile?.groups;
  return groups && !Array.isArray(groups) ? (groups.none ?? []) : [];
}

/** The groups a profile limits itself to (`groups` as a list, or `groups.any`). */
export function groupsOnly(profile: Profile | null): string[] {
  const groups = profile?.groups;
  if (!groups) return [];
  return Array.isArray(groups) ? groups : (groups.any ?? []);
}

export function tagState(profile: Profile | null, tag: string): TagState {
  if (profile?.tags?.all?.includes(tag)) return 'require';
  if (profile?.tags?.none?.includes(tag)) return 'exclude';
  return 'ignore';
}

export function patterns(profile: Profile | null, section: Section, list: PatternListName): string[] {
  return profile?.[section]?.[list] ?? [];
}

export function enforces(profile: Profile | null): boolean {
  return profile?.enforce ?? true;
}

export const SECTIONS: readonly Section[] = ['tools', 'resources', 'prompts'];
export const LISTS: readonly PatternListName[] = ['allow', 'deny'];
