// The stores of the app, made once and wired to each other.

import { AuditStore } from './audit/store.svelte';
import { ConnectStore } from './connect/store.svelte';
import { LabelsStore } from './labels/store.svelte';
import { MeterStore } from './meter/store.svelte';
import { ProfilesStore } from './profiles/store.svelte';
import { QuarantineStore } from './quarantine/store.svelte';
import { ServersStore } from './servers/store.svelte';
import { TasksStore } from './tasks/store.svelte';
import { ToolsStore } from './tools/store.svelte';

export interface Stores {
  profiles: ProfilesStore;
  meter: MeterStore;
  tools: ToolsStore;
  labels: LabelsStore;
  quarantine: QuarantineStore;
  servers: ServersStore;
  tasks: TasksStore;
  audit: AuditStore;
  connect: ConnectStore;
}

export function createStores(now?: () => Date): Stores {
  const profiles = new ProfilesStore();
  const connect = new ConnectStore(profiles);
  const labels = new LabelsStore();
  const stores: Stores = {
    profiles,
    meter: new MeterStore(profiles),
    tools: new ToolsStore(profiles, labels),
    labels,
    // The quarantine switch is a setting of config.json like the tray's.
    quarantine: new QuarantineStore(connect.settings),
    servers: new ServersStore(),
    tasks: new TasksStore(profiles, now),
    audit: new AuditStore(now),
    connect,
  };
  // What the profile being edited shows: its rows, its tokens, its snippets.
  profiles.follow(() =>
    Promise.all([stores.tools.load(), stores.meter.load(), stores.connect.loadSnippets()]),
  );
  return stores;
}

/** Everything the screens show, read once at start. */
export async function loadAll(stores: Stores): Promise<void> {
  await Promise.all([
    stores.profiles.load(),
    stores.tools.load(),
    stores.labels.load(),
    stores.meter.load(),
    stores.quarantine.load(),
    stores.servers.load(),
    stores.tasks.load(),
    stores.audit.load(),
    stores.connect.load(),
  ]);
}
