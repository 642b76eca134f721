// Runes everywhere: the components and the stores share one reactivity model.
export default {
  compilerOptions: { runes: true },
};
