import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig(({ mode }) => ({
  plugins: [svelte()],
  // Tauri prints its own output in the same terminal; keep it readable.
  clearScreen: false,
  server: {
    // The shell's devUrl points here; another port would load a blank window.
    port: 1420,
    strictPort: true,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
  },
  // The stores' runes need Svelte's client runtime, not its server one
  // (vitest runs in mode "test").
  resolve: mode === 'test' ? { conditions: ['browser'] } : undefined,
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
}));
