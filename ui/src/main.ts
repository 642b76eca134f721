import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import { Live } from './lib/live';
import { reportPageErrors } from './lib/pageErrors';
import { createStores, loadAll } from './lib/stores';

reportPageErrors(window);

const stores = createStores();
// Follow changes before the first load, so none made meanwhile is missed.
void new Live(stores).start().then(
  () => loadAll(stores),
  (error: unknown) => {
    // The screens still work, they only miss changes made elsewhere.
    console.error('MCP Sieve cannot follow changes; reopen the window to see them', error);
    return loadAll(stores);
  },
);

mount(App, { target: document.getElementById('app')!, props: { stores } });
