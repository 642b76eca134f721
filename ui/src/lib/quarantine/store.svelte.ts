import {
  quarantineApprove,
  quarantineKeepHidden,
  quarantineList,
  settingsSetQuarantine,
  type QuarantinedTool,
  type Settings,
} from '../backend';
import { Action, Loader } from '../request.svelte';

/**
 * The tools held in quarantine (DESIGN §9), the decisions on them, and the
 * setting that turns quarantine on and off.
 */
export class QuarantineStore {
  list = new Loader<QuarantinedTool[]>([]);
  /** Approve and keep hidden; the failure shows above the list. */
  decide = new Action();
  /** `config.json`'s settings, shared with the Connect screen. */
  readonly settings: Loader<Settings | null>;
  /** A change of the quarantine setting. */
  setting = new Action();
  /** The tool the Tools screen sent the person here to review. */
  focus = $state<string | null>(null);

  /** Not decided on yet: what the person has to look at. */
  toReview = $derived(this.list.value.filter((tool) => !tool.keptHidden));
  /** Looked at and kept hidden, until the server changes them again. */
  keptHidden = $derived(this.list.value.filter((tool) => tool.keptHidden));

  constructor(settings: Loader<Settings | null>) {
    this.settings = settings;
  }

  load(): Promise<boolean> {
    return this.list.load(quarantineList);
  }

  /** Approves the tools as they are in quarantine: every profile judges them by its own rules again. */
  approve(exposedNames: string[]): Promise<boolean> {
    return this.#decide(() => quarantineApprove(exposedNames));
  }

  /** Approves every tool still to review (not the ones kept hidden). */
  approveAll(): Promise<boolean> {
    return this.approve(this.toReview.map((tool) => tool.exposedName));
  }

  /** Keeps the tools hidden until their definition changes again. */
  keepHidden(exposedNames: string[]): Promise<boolean> {
    return this.#decide(() => quarantineKeepHidden(exposedNames));
  }

  #decide(write: () => Promise<unknown>): Promise<boolean> {
    return this.decide.run(async () => {
      await write();
      // The rows and the meter follow with the shell's change events.
      await this.load();
    });
  }

  /** Whether quarantine is on, as `config.json` says (on until it has been read). */
  get on(): boolean {
    return this.settings.value?.quarantine ?? true;
  }

  setOn(on: boolean): Promise<boolean> {
    return this.setting.run(async () => {
      this.settings.value = await settingsSetQuarantine(on);
    });
  }
}
