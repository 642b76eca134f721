import {
  labelEdit,
  labelsSetDeriveGroups,
  labelsView,
  type ConcernDefinition,
  type LabelEdit,
  type LabelsView,
  type Overlay,
} from '../backend';
import { Action, Loader } from '../request.svelte';

/**
 * The labels of config.json (derived groups and their renames, overlays
 * as rules, concern definitions) and every labelling edit, from the Labels
 * screen and the Tools screen's selection bar. The library decides what
 * each edit writes; this keeps what it answers.
 */
export class LabelsStore {
  view = new Loader<LabelsView | null>(null);
  /** Edits made on the Labels screen, their error kept here. */
  edit = new Action();
  /** A rule's form saved: its error shows in the form, under the rule. */
  ruleEdit = new Action();

  load(): Promise<boolean> {
    return this.view.load(labelsView);
  }

  /**
   * Writes `edit` into config.json and keeps the labels it answers with.
   * Rejects with the shell's error, having changed nothing.
   */
  async apply(edit: LabelEdit): Promise<void> {
    this.view.value = await labelEdit(edit);
  }

  /** An edit from the Labels screen, its error kept on `edit`. */
  change(edit: LabelEdit): Promise<boolean> {
    return this.edit.run(() => this.apply(edit));
  }

  /** Renames group `from` everywhere; onto a group that exists, merges the two. */
  renameGroup(from: string, to: string): Promise<boolean> {
    return this.change({ op: 'renameGroup', from, to: to.trim() });
  }

  removeOverlay(index: number): Promise<boolean> {
    return this.change({ op: 'removeOverlay', index });
  }

  /**
   * Puts `overlay` in the place of rule `index`, which the person saw as
   * `was`: the library refuses it, writing nothing, when the rule changed
   * in config.json since, or when the overlay is not valid.
   */
  replaceOverlay(index: number, was: Overlay, overlay: Overlay): Promise<boolean> {
    return this.ruleEdit.run(() => this.apply({ op: 'replaceOverlay', index, was, overlay }));
  }

  /** Adds `concern`, or replaces the definition of that name. */
  defineConcern(concern: ConcernDefinition): Promise<boolean> {
    return this.change({ op: 'defineConcern', concern });
  }

  removeConcern(name: string): Promise<boolean> {
    return this.change({ op: 'removeConcern', name });
  }

  /** Turns derived groups on or off (`settings.deriveGroups`). */
  setDeriveGroups(on: boolean): Promise<boolean> {
    return this.edit.run(async () => {
      this.view.value = await labelsSetDeriveGroups(on);
    });
  }
}
