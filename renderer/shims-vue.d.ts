// Lets plain `tsc -b` accept `import X from './X.vue'`; vue-tsc resolves the real components instead.
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}
